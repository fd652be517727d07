// A streaming chat REPL with one tool (get_weather), in the ai00 v1 chat format.
//
//	go run ./examples/chat_repl [--seed N] [--require-tool] MODEL
//
// Type a message per line; the reply streams as it is generated. When the model calls
// get_weather, the REPL answers with a made-up forecast and lets the model continue. Ctrl-C
// cancels the reply being generated; EOF ends. --require-tool makes the first reply to each
// message a get_weather call (a custom grammar in the ai00 v1 call syntax: "tool choice
// required"), for small models that would not call on their own.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"ai00"
)

const tools = `[{"name": "get_weather", "description": "Current weather of a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]`

// requiredCall is a grammar for one get_weather call in the ai00 v1 syntax.
const requiredCall = `start ::= '<ai00:function_calls>\n  <invoke name="get_weather">\n    <parameter name="city">' city '</parameter>\n  </invoke>\n</ai00:function_calls>';
city ::= #'[A-Z][a-z]{1,8}';`

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// getWeather is the tool itself: a made-up forecast, as JSON.
func getWeather(arguments string) string {
	return fmt.Sprintf(`{"arguments": %s, "forecast": "sunny", "celsius": 21}`, arguments)
}

func main() {
	seed := flag.Uint64("seed", 7, "sampler seed")
	requireTool := flag.Bool("require-tool", false, "force a get_weather call first")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: chat_repl [--seed N] [--require-tool] MODEL")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *seed, *requireTool); err != nil {
		fmt.Fprintln(os.Stderr, "chat_repl:", err)
		os.Exit(1)
	}
}

func run(modelPath string, seed uint64, requireTool bool) error {
	model, err := ai00.LoadModel(modelPath, nil)
	if err != nil {
		return err
	}
	defer model.Close()
	state, err := ai00.NewState(model)
	if err != nil {
		return err
	}
	defer state.Close()
	template, err := ai00.NewChatTemplate(ai00.FormatAi00V1)
	if err != nil {
		return err
	}
	defer template.Close()
	required, err := ai00.CompileGrammar(model, requiredCall)
	if err != nil {
		return err
	}
	defer required.Close()
	render := &ai00.RenderOptions{ToolsJSON: tools}
	params := &ai00.GenerateParams{MaxTokens: 120, Seed: ai00.Seed(seed), GrammarMode: ai00.GrammarSchemaAware}
	forced := *params
	forced.Grammar, forced.MaxTokens = required, 200

	messages := []string{`{"role":"system","content":"You are a helpful assistant."}`}
	in := bufio.NewScanner(os.Stdin)
	for {
		fmt.Print("you> ")
		if !in.Scan() {
			break
		}
		line := strings.TrimRight(in.Text(), "\r")
		fmt.Println(line)
		messages = append(messages, fmt.Sprintf(`{"role":"user","content":%s}`, jsonString(line)))
		fmt.Print("assistant> ")
		kept := len(messages)
		// At most two rounds: the reply, and the reply after the tool results.
		for round := 0; round < 2; round++ {
			p := params
			if requireTool && round == 0 {
				p = &forced
			}
			more, err := reply(model, state, template, render, p, &messages)
			if err != nil {
				// e.g. a reply cut inside a call marker cannot be rendered again: forget the turn.
				fmt.Printf("\n[error: %v]\n", err)
				messages = messages[:kept-1]
				break
			}
			if !more {
				break
			}
		}
	}
	fmt.Println("bye")
	return in.Err()
}

// reply generates one assistant message, streaming it, and appends it and the results of its
// tool calls to messages; more is true when tools were called.
func reply(model *ai00.Model, state *ai00.State, template *ai00.ChatTemplate,
	render *ai00.RenderOptions, params *ai00.GenerateParams, messages *[]string) (more bool, err error) {
	if err := state.Reset(); err != nil { // the whole conversation is rendered again
		return false, err
	}
	conversation := "[" + strings.Join(*messages, ",") + "]"
	gen, err := ai00.NewChatGenerator(model, state, template, conversation, render, nil, params)
	if err != nil {
		return false, err
	}
	defer gen.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var results []string
	for d := range gen.Stream(ctx) {
		switch d.Kind {
		case ai00.DeltaText:
			fmt.Print(d.Text)
		case ai00.DeltaReasoning:
			fmt.Printf("(%s)", d.Text)
		case ai00.DeltaToolCall:
			c := d.ToolCall
			fmt.Printf("\n[tool %s(%s)] ", c.Name, c.Arguments)
			if c.Valid && c.Name == "get_weather" {
				results = append(results, fmt.Sprintf(`{"role":"tool","tool_call_id":%s,"content":%s}`,
					jsonString(c.ID), jsonString(getWeather(c.Arguments))))
			}
		case ai00.DeltaFinish:
			if d.Err != nil {
				return false, d.Err
			}
			fmt.Printf("\n[%s]\n", d.FinishReason)
		}
	}
	message, err := gen.MessageJSON()
	if err != nil {
		return false, err
	}
	*messages = append(*messages, message)
	*messages = append(*messages, results...)
	return len(results) > 0, nil
}
