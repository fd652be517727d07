// A small test runner (no NuGet): every public static void method of a class marked [TestClass]
// whose name starts with "Test" runs once; the last line is "N passed, N failed" and the exit
// code is the number of failures (capped at 100). Arguments filter tests by substring of
// "Class.Method": "Core" runs the matching ones, "-Slow" leaves the matching ones out.
using System;
using System.Linq;
using System.Reflection;

namespace Ai00.Tests
{
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class TestClassAttribute : Attribute { }

    public class AssertionException : Exception { public AssertionException(string m) : base(m) { } }

    public static class Assert
    {
        public static void True(bool c, string what = "condition") { if (!c) throw new AssertionException(what + " is false"); }
        public static void Equal<T>(T expected, T actual, string what = "value")
        {
            if (!Equals(expected, actual)) throw new AssertionException(what + ": expected <" + expected + "> but got <" + actual + ">");
        }
        public static void Contains(string needle, string hay, string what = "text")
        {
            if (hay == null || !hay.Contains(needle)) throw new AssertionException(what + ": <" + hay + "> does not contain <" + needle + ">");
        }
        /// <summary>The call throws Ai00Exception with this status; returns it.</summary>
        public static Ai00Exception Throws(Status status, Action a)
        {
            try { a(); }
            catch (Ai00Exception e)
            {
                if (e.Status != status) throw new AssertionException("expected status " + status + " but got " + e.Status + ": " + e.Message);
                return e;
            }
            throw new AssertionException("expected Ai00Exception(" + status + "), nothing thrown");
        }
    }

    public static class TestRunner
    {
        static bool Selected(string name, string[] args)
        {
            var include = args.Where(a => !a.StartsWith("-")).ToList();
            if (args.Any(a => a.StartsWith("-") && name.Contains(a.Substring(1)))) return false;
            return include.Count == 0 || include.Any(a => name.Contains(a));
        }

        public static int Main(string[] args)
        {
            int passed = 0, failed = 0;
            var tests = Assembly.GetExecutingAssembly().GetTypes()
                .Where(t => t.GetCustomAttributes(typeof(TestClassAttribute), false).Length > 0)
                .SelectMany(t => t.GetMethods(BindingFlags.Public | BindingFlags.Static))
                .Where(m => m.Name.StartsWith("Test") && m.GetParameters().Length == 0)
                .Where(m => Selected(m.DeclaringType.Name + "." + m.Name, args))
                .OrderBy(m => m.MetadataToken);
            foreach (var m in tests)
            {
                string name = m.DeclaringType.Name + "." + m.Name;
                var clock = System.Diagnostics.Stopwatch.StartNew();
                try
                {
                    m.Invoke(null, null);
                    ++passed;
                    Console.WriteLine("PASS " + name + " (" + clock.ElapsedMilliseconds + " ms)");
                }
                catch (TargetInvocationException e)
                {
                    ++failed;
                    Console.WriteLine("FAIL " + name + ": " + e.InnerException);
                }
            }
            GC.Collect();
            GC.WaitForPendingFinalizers();
            Console.WriteLine(passed + " passed, " + failed + " failed");
            return Math.Min(failed, 100);
        }
    }
}
