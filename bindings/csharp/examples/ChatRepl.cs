// A streaming chat REPL with one tool (get_weather) on the ai00 C# binding.
//
//   mono ChatRepl.exe [MODEL]      then type lines; an empty line or end of input ends
//
// Each line is a user turn: the reply streams as it is generated ([reasoning] in brackets); when
// the model calls get_weather the tool runs here, its result joins the conversation and the model
// continues. Ctrl+C cancels the running reply through a CancellationToken.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using Ai00;

static class ChatRepl
{
    const string Tools = "[{\"name\":\"get_weather\",\"description\":\"Current weather of a city\"," +
        "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}}]";

    static string GetWeather(string argumentsJson)
    {
        var city = (string)System.Json.JsonValue.Parse(argumentsJson)["city"];
        return "{\"city\":" + new System.Json.JsonPrimitive(city).ToString() + ",\"sky\":\"clear\",\"celsius\":21}";
    }

    static string Quote(string s) => new System.Json.JsonPrimitive(s).ToString();

    static int Main(string[] args)
    {
        var shared = Environment.GetEnvironmentVariable("AI00_SHARED_DIR");
        if (string.IsNullOrEmpty(shared)) shared = Environment.GetEnvironmentVariable("AI00_DEFAULT_SHARED_DIR");
        if (string.IsNullOrEmpty(shared)) shared = Path.Combine("..", "shared");
        var path = args.Length > 0 ? args[0] : Path.Combine(shared, "models", "rand-rwkv7-c128-l3-v512-F16.gguf");
        // The conversation as JSON messages (the library's message model).
        var conversation = new List<string> { "{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"}" };
        var cancel = new CancellationTokenSource();
        Console.CancelKeyPress += (s, e) => { e.Cancel = true; cancel.Cancel(); cancel = new CancellationTokenSource(); };
        using (var model = Model.Load(path))
        using (var template = new ChatTemplate("ai00-v1"))
        {
            string line;
            while (!string.IsNullOrEmpty(line = Console.ReadLine()?.Trim()))
            {
                conversation.Add("{\"role\":\"user\",\"content\":" + Quote(line) + "}");
                Console.Write("User: " + line + "\nAssistant: ");
                for (int round = 0; round < 3; ++round)  // a reply, then at most two tool round trips
                {
                    var calls = new List<Delta>();
                    // A fresh State per turn re-reads the conversation; a long chat would keep one.
                    using (var state = model.NewState())
                    using (var gen = Generator.Chat(model, state, template, "[" + string.Join(",", conversation) + "]",
                        new RenderOptions { ToolsJson = Tools },
                        new GenerateOptions { MaxTokens = 48, Seed = (ulong)conversation.Count }))
                    {
                        foreach (var d in gen.Stream(cancel.Token))
                        {
                            if (d.Kind == DeltaKind.Text) Console.Write(d.Text);
                            else if (d.Kind == DeltaKind.Reasoning) Console.Write("[" + d.Text + "]");
                            else if (d.Kind == DeltaKind.ToolCall && d.Valid) calls.Add(d);
                            else if (d.Kind == DeltaKind.Finish) Console.WriteLine("\n[" + Lib.FinishReasonName(d.FinishReason) + "]");
                        }
                        conversation.Add(gen.MessageJson);
                    }
                    if (calls.Count == 0) break;
                    foreach (var call in calls)
                    {
                        var result = GetWeather(call.Arguments);
                        Console.WriteLine("[tool " + call.Name + "(" + call.Arguments + ") -> " + result + "]");
                        conversation.Add("{\"role\":\"tool\",\"tool_call_id\":" + Quote(call.Id) + ",\"name\":" +
                            Quote(call.Name) + ",\"content\":" + Quote(result) + "}");
                    }
                }
            }
        }
        Console.WriteLine(conversation.Count(m => m.StartsWith("{\"role\":\"user\"")) + " turns");
        return 0;
    }
}
