//! A streaming chat REPL with one tool (get_weather), in the ai00 v1 chat format.
//!
//!   cargo run --example chat_repl -- MODEL [--seed N] [--require-tool]
//!
//! Type a message per line; the reply streams as it is generated. When the model calls
//! get_weather, the REPL answers with a made-up forecast and lets the model continue. EOF ends.
//! `--require-tool` makes the first reply to each message a get_weather call (a custom grammar
//! in the ai00 v1 call syntax: "tool choice required"), for small models that would not call.
use ai00::{ChatTemplate, Delta, Format, GenerateParams, Generator, Grammar, GrammarMode, Model,
           RenderOptions, SamplerParams, State};
use std::io::{BufRead, Write};

const TOOLS: &str = r#"[{"name": "get_weather", "description": "Current weather of a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]"#;

/// The reply must be one get_weather call, in the ai00 v1 syntax (docs/chat-formats.md).
const REQUIRED_CALL: &str = r#"start ::= '<ai00:function_calls>\n  <invoke name="get_weather">\n    <parameter name="city">' city '</parameter>\n  </invoke>\n</ai00:function_calls>';
city ::= #'[A-Z][a-z]{1,8}';"#;

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The tool itself: a made-up forecast, as JSON.
fn get_weather(arguments: &str) -> String {
    format!(r#"{{"arguments": {arguments}, "forecast": "sunny", "celsius": 21}}"#)
}

type Round<'a> = dyn FnMut(&str, usize, &mut Vec<String>) -> Result<bool, ai00::Error> + 'a;

/// One user turn: at most two rounds, the reply and the reply after the tool results.
fn turn(messages: &mut Vec<String>, round: &mut Round) -> Result<(), ai00::Error> {
    for r in 0..2 {
        let conversation = format!("[{}]", messages.join(","));
        if !round(&conversation, r, messages)? {
            break;
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let model_path = args.get(1).ok_or("usage: chat_repl MODEL [--seed N] [--require-tool]")?;
    let seed = match args.iter().position(|a| a == "--seed") {
        Some(i) => args.get(i + 1).ok_or("--seed needs a value")?.parse()?,
        None => 7u64,
    };
    let require_tool = args.iter().any(|a| a == "--require-tool");
    let model = Model::load(model_path)?;
    let mut state = State::new(&model)?;
    let template = ChatTemplate::new(Format::Ai00V1)?;
    let render = RenderOptions { tools_json: Some(TOOLS.into()), ..Default::default() };
    let sampler = SamplerParams::default();
    let params = GenerateParams { max_tokens: 120, seed: Some(seed),
                                  grammar_mode: GrammarMode::SchemaAware, ..Default::default() };
    let required = Grammar::compile(&model, REQUIRED_CALL)?;
    let forced = GenerateParams { grammar: Some(&required), max_tokens: 200, ..params.clone() };
    let mut messages: Vec<String> = vec![
        r#"{"role":"system","content":"You are a helpful assistant."}"#.into()];
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    loop {
        print!("you> ");
        out.flush()?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end();
        println!("{line}");
        messages.push(format!(r#"{{"role":"user","content":{}}}"#, json_string(line)));
        print!("assistant> ");
        let kept = messages.len();
        if let Err(e) = turn(&mut messages, &mut |conversation, round, messages| {
            state.reset()?; // the whole conversation is rendered again each round
            let p = if require_tool && round == 0 { &forced } else { &params };
            let mut gen = Generator::chat(&model, &mut state, &template, conversation, &render,
                                          &sampler, p)?;
            let mut results = Vec::new();
            for delta in gen.deltas() {
                match delta? {
                    Delta::Text(text) => print!("{text}"),
                    Delta::Reasoning(text) => print!("({text})"),
                    Delta::ToolCall(call) => {
                        print!("\n[tool {}({})] ", call.name, call.arguments);
                        if call.valid && call.name == "get_weather" {
                            results.push((call.id, get_weather(&call.arguments)));
                        }
                    }
                    Delta::Finish(reason) => println!("\n[{}]", reason.name()),
                    // Streaming tool-call pieces come only with ParseOptions::stream_tool_calls.
                    _ => {}
                }
                std::io::stdout().flush().ok();
            }
            messages.push(gen.message_json()?);
            for (id, result) in &results {
                messages.push(format!(r#"{{"role":"tool","tool_call_id":{},"content":{}}}"#,
                                      json_string(id), json_string(result)));
            }
            Ok(!results.is_empty())
        }) {
            // e.g. a reply cut inside a call marker cannot be rendered again: forget the turn.
            println!("\n[error: {e}]");
            messages.truncate(kept - 1);
        }
    }
    println!("bye");
    Ok(())
}
