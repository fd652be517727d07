// An NPC dialogue the way a Unity MonoBehaviour or a Godot Node script drives ai00: the model is
// loaded once, each NPC owns a State (its memory), and the game's update loop calls Update() every
// frame; Update() spends a small token budget (Generator.Step) so a frame never stalls, shows the
// text as it arrives, and ends the line when the turn finishes. When the player walks away the
// turn is cancelled; the NPC's State is saved so the conversation survives a scene reload.
//
// In Unity: NpcDialogue is a MonoBehaviour (Start/Update/OnDestroy), libai00.so / ai00.dll sits in
// Assets/Plugins. In Godot 4 (C#): a Node with _Ready/_Process/_ExitTree. This file runs the same
// class from a plain 60 Hz loop so it can be tested without an engine:
//
//   mono NpcDialogue.exe [MODEL] [FRAMES]
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using Ai00;

/// <summary>One talking NPC (the MonoBehaviour / Node of a game).</summary>
public sealed class NpcDialogue : IDisposable
{
    public string NpcName = "Mira";
    public uint TokensPerFrame = 2;  // the per-frame budget: keeps the frame time bounded
    public string Subtitle => subtitle.ToString();
    public bool Talking => generator != null;

    readonly Model model;            // shared by every NPC (immutable, thread-safe)
    readonly ChatTemplate template;  // one per NPC script: a template belongs to one thread at a time
    State memory;
    Generator generator;
    readonly StringBuilder subtitle = new StringBuilder();
    bool introduced;                 // the persona is in the State once the first line is spoken

    public NpcDialogue(Model sharedModel, string savedMemory = null)
    {
        model = sharedModel;
        template = new ChatTemplate("goose");
        // Start(): restore the NPC's memory if the scene was saved.
        introduced = savedMemory != null && File.Exists(savedMemory);
        memory = introduced ? State.LoadFile(model, savedMemory) : model.NewState();
    }

    /// <summary>The player said something: start the NPC's reply (no work is done here).</summary>
    public void Say(string playerLine, ulong seed)
    {
        StopTalking();
        // The State is the NPC's memory of the whole dialogue: only the new turn is rendered
        // (with the persona before the first line) and prefilled, over the next frames.
        var turn = new List<string>();
        if (!introduced) turn.Add("{\"role\":\"system\",\"content\":\"You are " + NpcName + ", a blacksmith.\"}");
        turn.Add("{\"role\":\"user\",\"content\":\"" + playerLine.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"}");
        introduced = true;
        subtitle.Clear();
        generator = Generator.Chat(model, memory, template, "[" + string.Join(",", turn) + "]",
            new RenderOptions { AssistantName = NpcName }, new GenerateOptions { MaxTokens = 40, Seed = seed });
    }

    /// <summary>Called once per frame (Update / _Process): a budgeted step, never a whole reply.</summary>
    public void Update()
    {
        if (generator == null) return;
        foreach (var d in generator.Step(TokensPerFrame))
        {
            if (d.Kind == DeltaKind.Text) subtitle.Append(d.Text);
            if (d.Kind == DeltaKind.Finish)
            {
                Console.WriteLine(NpcName + ": " + subtitle + "  [" + Lib.FinishReasonName(d.FinishReason) + "]");
                generator.Dispose();
                generator = null;
                return;
            }
        }
    }

    /// <summary>The player walked away: cancel the line (from any thread: e.g. a UI callback).</summary>
    public void StopTalking()
    {
        if (generator == null) return;
        generator.Cancel();
        while (!generator.Finished) generator.Step(1);  // the next step ends the turn at once
        generator.Dispose();
        generator = null;
    }

    /// <summary>OnDestroy / _ExitTree: save the NPC's memory, free the native objects.</summary>
    public void Save(string path) => memory.SaveFile(path);
    public void Dispose()
    {
        generator?.Dispose();
        memory.Dispose();
        template.Dispose();
    }
}

static class Game
{
    static int Main(string[] args)
    {
        var shared = Environment.GetEnvironmentVariable("AI00_SHARED_DIR");
        if (string.IsNullOrEmpty(shared)) shared = Environment.GetEnvironmentVariable("AI00_DEFAULT_SHARED_DIR");
        if (string.IsNullOrEmpty(shared)) shared = Path.Combine("..", "shared");
        var path = args.Length > 0 ? args[0] : Path.Combine(shared, "models", "rand-rwkv7-c128-l3-v512-F16.gguf");
        int frames = args.Length > 1 ? int.Parse(args[1]) : 600;
        var save = Path.Combine(Path.GetTempPath(), "ai00_npc_" + System.Diagnostics.Process.GetCurrentProcess().Id + ".state");
        int lines = 0;
        using (var model = Model.Load(path))
        {
            using (var npc = new NpcDialogue(model))
            {
                npc.Say("Can you fix my sword?", 1);
                int frame = 0;
                for (; frame < frames && npc.Talking; ++frame) npc.Update();  // the engine's 60 Hz loop
                ++lines;
                Console.WriteLine("line took " + frame + " frames at " + npc.TokensPerFrame + " tokens per frame");
                npc.Say("How much?", 2);
                for (int i = 0; i < 3; ++i) npc.Update();  // the player leaves mid-line
                npc.StopTalking();
                Console.WriteLine("cancelled after: \"" + npc.Subtitle + "\"");
                npc.Save(save);
            }
            // Scene reload: the NPC remembers.
            using (var npc = new NpcDialogue(model, save))
            {
                npc.Say("I'm back.", 3);
                while (npc.Talking) npc.Update();
                ++lines;
            }
        }
        File.Delete(save);
        Console.WriteLine(lines + " lines spoken");
        return 0;
    }
}
