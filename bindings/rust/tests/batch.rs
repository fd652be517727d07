//! Batched decode, prefix cache, option scoring and State bundles (issue 14).
use ai00::*;
use std::collections::HashMap;
use std::path::PathBuf;

fn shared_dir() -> PathBuf {
    match std::env::var("AI00_SHARED_DIR") {
        Ok(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

fn load() -> Model {
    Model::load(shared_dir().join("models/rand-rwkv7-c128-l3-v512-F16.gguf")).unwrap()
}

const PROMPTS: [&str; 3] = ["Once upon a time", "The capital of France is", "In a village far away"];

fn greedy() -> SamplerParams {
    SamplerParams { method: SamplerMethod::Greedy, ..Default::default() }
}

fn params(cache: Option<&PrefixCache>) -> GenerateParams<'_> {
    GenerateParams { max_tokens: 8, prefix_cache: cache, ..Default::default() }
}

fn text_of(gen: &mut Generator) -> String {
    let mut text = String::new();
    for d in gen.deltas() {
        if let Delta::Text(t) = d.unwrap() {
            text += &t;
        }
    }
    text
}

fn alone(model: &Model, prompt: &str, cache: Option<&PrefixCache>) -> String {
    let mut state = State::new(model).unwrap();
    let mut gen = Generator::raw(model, &mut state, prompt, &greedy(), &params(cache)).unwrap();
    text_of(&mut gen)
}

#[test]
fn batch_of_three_matches_lone_runs_and_remove_midway() {
    let model = load();
    let want: Vec<String> = PROMPTS.iter().map(|p| alone(&model, p, None)).collect();
    let mut states: Vec<State> = PROMPTS.iter().map(|_| State::new(&model).unwrap()).collect();
    let mut extra = State::new(&model).unwrap();
    let mut batch = Batch::new(&model, &BatchParams::default()).unwrap();
    let mut ids = Vec::new();
    for (state, prompt) in states.iter_mut().zip(PROMPTS) {
        let gen = Generator::raw(&model, state, prompt, &greedy(), &params(None)).unwrap();
        ids.push(batch.add(gen).unwrap());
    }
    assert_eq!(batch.len().unwrap(), 3);
    let mut texts: HashMap<MemberId, String> = HashMap::new();
    let mut finished = 0;
    loop {
        let out = batch.step(&StepBudget { max_tokens: 2, time: None, whole_batch: false }).unwrap();
        for e in out.events {
            match e {
                BatchEvent::Delta { member, delta: Delta::Text(t) } => {
                    *texts.entry(member).or_default() += &t
                }
                BatchEvent::Finished { .. } => finished += 1,
                BatchEvent::Error { message, .. } => panic!("{message}"),
                _ => {}
            }
        }
        if out.steps == 0 || out.unfinished == 0 {
            break;
        }
    }
    assert_eq!(finished, 3);
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(texts[id], want[i]);
        assert_eq!(batch.member(*id).unwrap().finish_reason().unwrap(), Some(FinishReason::Length));
    }

    // Remove mid-way: the generator comes back and finishes alone with the same text.
    let gen = Generator::raw(&model, &mut extra, PROMPTS[0], &greedy(), &params(None)).unwrap();
    let id = batch.add(gen).unwrap();
    let out = batch.step(&StepBudget { max_tokens: 3, time: None, whole_batch: false }).unwrap();
    let mut first: String = out.events.iter().filter_map(|e| match e {
        BatchEvent::Delta { member, delta: Delta::Text(t) } if *member == id => Some(t.clone()),
        _ => None,
    }).collect();
    let mut gen = batch.remove(id).unwrap();
    assert_eq!(batch.len().unwrap(), 3);
    assert!(batch.remove(id).is_err());
    first += &text_of(&mut gen);
    assert_eq!(first, want[0]);
}

#[test]
fn batch_time_budget_takes_turns_unless_whole_batch() {
    let model = load();
    let mut states: Vec<State> = PROMPTS.iter().map(|_| State::new(&model).unwrap()).collect();
    let mut batch = Batch::new(&model, &BatchParams::default()).unwrap();
    for (state, prompt) in states.iter_mut().zip(PROMPTS) {
        batch.add(Generator::raw(&model, state, prompt, &greedy(), &params(None)).unwrap()).unwrap();
    }
    let tight = |whole_batch| StepBudget {
        max_tokens: 4, time: Some(std::time::Duration::from_micros(1)), whole_batch };
    // Nothing measured yet: one row each; then a 1 us budget holds one member per call.
    let out = batch.step(&tight(false)).unwrap();
    assert_eq!((out.steps, out.time_limited, out.prompt_tokens), (1, true, 3));
    let out = batch.step(&tight(false)).unwrap();
    assert_eq!((out.steps, out.time_limited, out.prompt_tokens), (1, true, 1));
    let out = batch.step(&tight(true)).unwrap();
    assert_eq!((out.steps, out.prompt_tokens), (1, 3));
}

#[test]
fn batch_refuses_a_generator_of_another_model() {
    let model = load();
    let other = Model::load(shared_dir().join("models/tiny-rwkv-7v0-834K-FP32.bin")).unwrap();
    let mut os = State::new(&other).unwrap();
    let mut batch = Batch::new(&model, &BatchParams::default()).unwrap();
    let gen = Generator::raw(&other, &mut os, "Hi", &greedy(), &params(None)).unwrap();
    let rejected = batch.add(gen).unwrap_err();
    assert_eq!(rejected.error.status, Status::Mismatch);
    assert!(!rejected.error.message.is_empty());
    let mut gen = rejected.generator; // handed back, still usable alone
    assert!(gen.step(1).is_ok());
    let err: Error = batch.add(gen).unwrap_err().into();
    assert_eq!(err.status, Status::Mismatch);
    assert!(batch.is_empty().unwrap());
    assert_eq!(batch.step(&StepBudget::default()).unwrap().steps, 0);
}

#[test]
fn prefix_cache_hit_gives_the_same_output() {
    let model = load();
    let prompt = "A long shared persona line for every character of the village. Hello";
    let miss = alone(&model, prompt, None);
    let cache = PrefixCache::new(&PrefixCacheParams { max_bytes: 64 << 20, ..Default::default() }).unwrap();
    assert_eq!(alone(&model, prompt, Some(&cache)), miss);
    let st = cache.stats().unwrap();
    assert_eq!((st.misses, st.hits), (1, 0));
    assert!(st.entries >= 1);
    // Another thread shares the cache (Send + Sync): the hit there gives the same text.
    let hit = std::thread::scope(|s| s.spawn(|| alone(&model, prompt, Some(&cache))).join().unwrap());
    assert_eq!(hit, miss);
    let st = cache.stats().unwrap();
    assert_eq!(st.hits, 1);
    assert!(st.hit_tokens > 0);
    cache.clear().unwrap();
    assert_eq!(cache.stats().unwrap().entries, 0);
    assert!(cache.warm_text(&model, "A long shared persona").unwrap() > 0);
    let toks = model.tokenize("A long shared persona").unwrap();
    assert_eq!(cache.warm(&model, &toks).unwrap(), 0);
    let err = cache.warm(&model, &[]).unwrap_err();
    assert_eq!(err.status, Status::InvalidArgument);
    // A generator keeps the cache alive after the caller's handle is dropped.
    let mut state = State::new(&model).unwrap();
    let params = GenerateParams { max_tokens: 4, prefix_cache: Some(&cache), ..Default::default() };
    let mut gen = Generator::raw(&model, &mut state, prompt, &greedy(), &params).unwrap();
    drop(params);
    drop(cache);
    assert!(!text_of(&mut gen).is_empty() || gen.finish_reason().unwrap().is_some());
}

#[test]
fn prefix_cache_reserve_sets_memory_aside() {
    let model = load();
    let info = model.info().unwrap();
    // One entry's memory: the State floats, the logits and 256 bytes.
    let per_entry = info.state_bytes + 4 * info.n_vocab as u64 + 256;
    let cache = PrefixCache::new(&PrefixCacheParams { max_bytes: 64 << 20, ..Default::default() }).unwrap();
    assert_eq!(cache.stats().unwrap().spare_bytes, 0);
    assert_eq!(cache.reserve(&model, 0).unwrap(), 0);
    assert_eq!(cache.reserve(&model, 2).unwrap(), 2);
    let st = cache.stats().unwrap();
    assert_eq!((st.spare_bytes, st.entries), (2 * per_entry, 0));
    // An insert takes a spare.
    assert!(cache.warm_text(&model, "A long shared persona").unwrap() > 0);
    let st = cache.stats().unwrap();
    assert_eq!((st.spare_bytes, st.entries), (per_entry, 1));
    cache.clear().unwrap();
    assert_eq!(cache.stats().unwrap().spare_bytes, 0);
    // A bound smaller than one entry sets nothing aside.
    let tiny = PrefixCache::new(&PrefixCacheParams { max_bytes: 1024, ..Default::default() }).unwrap();
    assert_eq!(tiny.reserve(&model, 2).unwrap(), 0);
    assert_eq!(tiny.stats().unwrap().spare_bytes, 0);
}

#[test]
fn option_scoring_leaves_the_state_unchanged() {
    let model = load();
    let mut state = State::new(&model).unwrap();
    state.prefill(&model.tokenize("The cat sat on the").unwrap()).unwrap();
    let before = state.save().unwrap();
    let words = [" mat", " roof", " very big dog"];
    let cands: Vec<Vec<u32>> = words.iter().map(|w| model.tokenize(w).unwrap()).collect();
    let refs: Vec<&[u32]> = cands.iter().map(|c| c.as_slice()).collect();
    let ctx = model.tokenize(" old").unwrap();
    let scores = state.score_options(&model, &refs, ScoreFrom::Context(&ctx)).unwrap();
    assert_eq!(scores.len(), 3);
    for (s, c) in scores.iter().zip(&cands) {
        assert!(s.total_logprob.is_finite() && s.total_logprob < 0.0);
        assert_eq!(s.n_tokens as usize, c.len());
    }
    assert_eq!(state.score_texts(&model, &words, ScoreFrom::Context(&ctx)).unwrap(), scores);
    assert_eq!(state.save().unwrap(), before);
    let err = state.score_options(&model, &[], ScoreFrom::Context(&ctx)).unwrap_err();
    assert_eq!(err.status, Status::InvalidArgument);
    assert!(!err.message.is_empty());
    let err = state.score_options(&model, &refs, ScoreFrom::Logits(&[0.0; 3])).unwrap_err();
    assert_eq!(err.status, Status::InvalidArgument);
}

#[test]
fn bundle_round_trip_and_truncated() {
    let model = load();
    let mut a = State::new(&model).unwrap();
    let mut b = State::new(&model).unwrap();
    a.prefill(&model.tokenize("Alice speaks").unwrap()).unwrap();
    b.prefill(&model.tokenize("Bob listens quietly").unwrap()).unwrap();
    let entries = [("alice", &a), ("bob", &b)];
    let data = StateBundle::save(&entries).unwrap();
    let path = std::env::temp_dir().join(format!("ai00_rust_{}_village.bundle", std::process::id()));
    StateBundle::save_file(&entries, &path).unwrap();
    for bundle in [StateBundle::open(&data).unwrap(), StateBundle::open_file(&path).unwrap()] {
        assert_eq!(bundle.names().unwrap(), ["alice", "bob"]);
        let i = bundle.find("bob").unwrap();
        assert_eq!(bundle.load(&model, i).unwrap().save().unwrap(), b.save().unwrap());
        assert_eq!(bundle.load(&model, 0).unwrap().save().unwrap(), a.save().unwrap());
        assert_eq!(bundle.find("carol").unwrap_err().status, Status::InvalidArgument);
    }
    std::fs::remove_file(&path).ok();
    let err = StateBundle::open(&data[..data.len() - 10]).err().unwrap();
    assert_eq!(err.status, Status::ModelFile);
    assert!(!err.message.is_empty());
    assert_eq!(StateBundle::save(&[("", &a)]).unwrap_err().status, Status::InvalidArgument);
}
