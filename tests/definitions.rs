//! API reference search: a query that is an identifier or a path finds the page defining
//! it first, its result linking to the entry (`definition`, and its first sub-result),
//! whatever generator wrote the page; prose queries are answered as prose.

use sift_base::SourceDoc;
use sift_engine::contract::SearchResponse;
use sift_engine::SearchRequest;
use sift_extract::html::{extract, HtmlOptions};
use sift_tests::*;

fn page(path: &str, html: &str) -> SourceDoc {
    extract(html.as_bytes(), path, &HtmlOptions::default()).unwrap().0
}

fn sphinx(module: &str, entries: &[(&str, &str, &str)]) -> String {
    let dl: String = entries
        .iter()
        .map(|(kind, id, text)| {
            format!(r##"<p><span id="index-{id}"></span></p><dl class="py {kind}"><dt class="sig sig-object py" id="{id}">{id}()<a class="headerlink" href="#{id}">¶</a></dt><dd><p>{text}</p></dd></dl>"##)
        })
        .collect();
    format!(
        r#"<html><body><div class="body"><section id="module-{module}"><h1>{module} — the {module} module</h1><p>This module provides {module} functions.</p>{dl}</section></div></body></html>"#
    )
}

fn site() -> Vec<SourceDoc> {
    vec![
        page(
            "library/os.html",
            &sphinx(
                "os",
                &[
                    ("function", "os.getcwd", "Return a string representing the current working directory."),
                    ("function", "os.getcwdb", "Return a bytestring representing the current working directory."),
                    ("function", "os.open", "Open the file path and set various flags."),
                ],
            ),
        ),
        page(
            "library/functions.html",
            &sphinx(
                "builtins",
                &[
                    ("function", "sorted", "Return a new sorted list from the items in iterable."),
                    ("function", "open", "Open file and return a corresponding file object."),
                    ("function", "len", "Return the length (the number of items) of an object."),
                ],
            ),
        ),
        // A tutorial that says os.getcwd more often than its definition does.
        page(
            "tutorial/stdlib.html",
            r#"<html><body><main><h1>Brief Tour of the Standard Library</h1><h2 id="os">Operating System Interface</h2>
            <p>The os module: os.getcwd() returns the current working directory; call os.getcwd() again after os.chdir.
            Always use os.getcwd, never from os import *: os.getcwd os.getcwd.</p></main></body></html>"#,
        ),
        page(
            "howto/sorting.html",
            r#"<html><body><main><h1>Sorting HOW TO</h1><h2 id="basics">Sorting Basics</h2>
            <p>How to sort a list: a simple ascending sort is easy, just call the sorted() function. It returns a new sorted list.
            You can also sort a list in place with list.sort(). Sorting a list of tuples sorts by the first item.</p></main></body></html>"#,
        ),
        // rustdoc: the struct, and the source listing that mentions with_capacity all over.
        page(
            "std/vec/struct.Vec.html",
            r##"<html><body class="rustdoc struct"><main><section id="main-content" class="content">
            <h1 class="fqn"><span class="in-band">Struct <a href="../index.html">std</a>::<wbr><a href="index.html">vec</a>::<wbr><a class="struct" href="#">Vec</a></span></h1>
            <div class="docblock"><p>A contiguous growable array type, written as Vec&lt;T&gt;.</p></div>
            <section id="method.new" class="method"><span class="rightside"><a class="srclink" href="../../src/alloc/vec/mod.rs.html#1">source</a></span><h4 class="code-header">pub const fn new() -&gt; Vec&lt;T&gt;</h4></section>
            <div class="docblock"><p>Constructs a new, empty Vec.</p></div>
            <section id="method.with_capacity" class="method"><span class="rightside"><a class="srclink" href="../../src/alloc/vec/mod.rs.html#2">source</a></span><h4 class="code-header">pub fn with_capacity(capacity: usize) -&gt; Vec&lt;T&gt;</h4></section>
            <div class="docblock"><p>Constructs a new, empty Vec with at least the specified capacity.</p></div>
            </section></main></body></html>"##,
        ),
        page(
            "src/alloc/vec/mod.rs.html",
            r#"<html><body class="rustdoc source"><main><pre class="rust"><code>impl&lt;T&gt; Vec&lt;T&gt; {
            pub fn with_capacity(capacity: usize) -&gt; Self { Self::with_capacity_in(capacity, Global) }
            // Vec::with_capacity Vec::with_capacity with_capacity with_capacity
            pub fn with_capacity_in(capacity: usize, alloc: A) -&gt; Self { Vec { buf: RawVec::with_capacity_in(capacity, alloc), len: 0 } }
            }</code></pre></main></body></html>"#,
        ),
        // Sphinx's view of a module's source (no generator mark: it is all code).
        page(
            "_modules/os.html",
            r#"<html><body><div class="body"><h1>Source code for os</h1><div class="highlight"><pre>
            def getcwd(): return _getcwd()  # the current working directory: getcwd, current working directory
            def getcwdb(): return _getcwdb()  # the current working directory as bytes: getcwd getcwd
            def chdir(path): _chdir(path)  # change the current working directory; then getcwd returns the current working directory
            </pre></div></div></body></html>"#,
        ),
    ]
}

fn engine() -> sift_engine::Engine {
    engine_from_docs(&site(), &sift_build::BuildOptions::default()).unwrap()
}

fn first_definition(r: &SearchResponse) -> (&str, Option<(&str, &str, &str)>, Option<&str>) {
    let top = &r.results[0];
    (
        top.id.as_str(),
        top.definition.as_ref().map(|d| (d.path.as_str(), d.kind.as_str(), d.url.as_str())),
        top.sub_results.first().map(|s| s.url.as_str()),
    )
}

#[test]
fn an_identifier_finds_its_definition_first_with_the_link_to_it() {
    let e = engine();
    let r = search(&e, "os.getcwd");
    assert_eq!(
        first_definition(&r),
        ("library/os.html", Some(("os.getcwd", "function", "library/os.html#os.getcwd")), Some("library/os.html#os.getcwd"))
    );
    assert!(r.results[0].snippet.contains("current working directory"), "the entry's text is the snippet: {}", r.results[0].snippet);
    // By a tail of its path, and with the separators written another way.
    for q in ["getcwd", "os::getcwd", "os.getcwd()", "OS.GETCWD"] {
        let r = search(&e, q);
        assert_eq!(first_definition(&r).1.map(|d| d.2), Some("library/os.html#os.getcwd"), "{q}");
    }
    let r = search(&e, "Vec::with_capacity");
    assert_eq!(first_definition(&r).1, Some(("std::vec::Vec::with_capacity", "method", "std/vec/struct.Vec.html#method.with_capacity")));
    assert_eq!(search(&e, "vec.with_capacity").results[0].definition, r.results[0].definition);
    assert_eq!(search(&e, "std::vec::Vec::with_capacity").results[0].definition, r.results[0].definition);
    // Typed with a CJK input method left on: full-width letters, separators and spaces.
    for q in ["ｏｓ．ｇｅｔｃｗｄ", "ｏｓ：：ｇｅｔｃｗｄ", "ｏｓ\u{3000}ｇｅｔｃｗｄ"] {
        assert_eq!(first_definition(&search(&e, q)).1.map(|d| d.2), Some("library/os.html#os.getcwd"), "{q}");
    }
    // Written with a sigil before it or a question mark after it, as code and questions do.
    for q in ["&os.getcwd", "?getcwd", "@os.getcwd", "os.getcwd?"] {
        assert_eq!(first_definition(&search(&e, q)).1.map(|d| d.2), Some("library/os.html#os.getcwd"), "{q}");
    }
    assert_eq!(first_definition(&search(&e, "&Vec")).1.map(|d| d.0), Some("std::vec::Vec"));
    // A page that is its item: the link is the page.
    let r = search(&e, "std::vec::Vec");
    assert_eq!(first_definition(&r).1, Some(("std::vec::Vec", "struct", "std/vec/struct.Vec.html")));
}

#[test]
fn the_whole_path_comes_before_a_tail_of_a_longer_one() {
    let e = engine();
    let r = search(&e, "open");
    let defs: Vec<&str> = r.results.iter().filter_map(|x| x.definition.as_ref()).map(|d| d.path.as_str()).collect();
    assert_eq!(defs, ["open", "os.open"]);
    // Scores still read best first.
    assert!(r.results.windows(2).all(|w| w[0].score >= w[1].score), "{:?}", r.results.iter().map(|x| x.score).collect::<Vec<_>>());
}

#[test]
fn a_path_being_typed_completes_to_its_definition() {
    let e = engine();
    let r = search(&e, "Vec::with_capa");
    assert_eq!(first_definition(&r).1.map(|d| d.0), Some("std::vec::Vec::with_capacity"));
    let r = search(&e, "os.getc");
    assert_eq!(first_definition(&r).1.map(|d| d.0), Some("os.getcwd"));
    // While the separator is typed, the type's members are offered.
    let r = search(&e, "Vec::");
    assert!(r.results[0].definition.as_ref().is_some_and(|d| d.path.starts_with("std::vec::Vec")), "{:?}", r.results[0]);
    // A typo matches no path: its parts are searched as words (typos forgiven), and the
    // response says so.
    let r = search(&e, "os.getcwdd");
    assert!(ids(&r).contains(&"library/os.html"), "{:?}", ids(&r));
    let fallback = r.fallback.as_ref().expect("a fallback note");
    assert_eq!(fallback.from, "identifier");
    assert!(fallback.reason.starts_with("no document contains os.getcwdd; searched for its parts: os getcwdd"), "{}", fallback.reason);
}

#[test]
fn a_path_written_as_words_finds_its_definition() {
    let e = engine();
    // As people type a module and a name, a type and a method.
    for (q, entry) in [("os getcwd", "library/os.html#os.getcwd"), ("Vec with_capacity", "std/vec/struct.Vec.html#method.with_capacity")] {
        let r = search(&e, q);
        assert_eq!(first_definition(&r).1.map(|d| d.2), Some(entry), "{q}");
        assert_eq!(first_definition(&r).2, Some(entry), "{q}: the first sub-result is the entry");
    }
    // Words that make no defined path stay words; a stop word first reads nothing more.
    let r = search(&e, "sort list");
    assert!(r.results.iter().all(|x| x.definition.is_none()), "{:?}", ids(&r));
    let r = search(&e, "the getcwd");
    assert!(r.results.iter().all(|x| x.definition.is_none()), "{:?}", ids(&r));
    // Four words are prose, even when their tail is a path.
    let r = search(&e, "current directory os getcwd");
    assert!(r.results.iter().all(|x| x.definition.is_none()), "{:?}", ids(&r));
}

#[test]
fn a_module_and_a_method_written_as_words_find_the_method_of_the_class_between() {
    let argparse = sphinx(
        "argparse",
        &[
            ("class", "argparse.ArgumentParser", "Create a new ArgumentParser object that parses the arguments."),
            ("method", "argparse.ArgumentParser.add_argument", "Define how a single command-line argument should be parsed."),
            ("method", "argparse.ArgumentParser.parse_args", "Convert argument strings to objects."),
        ],
    );
    let docs = [page("library/argparse.html", &argparse), site().remove(0)];
    let e = engine_from_docs(&docs, &sift_build::BuildOptions::default()).unwrap();
    let def = |q: &str| search(&e, q).results.first().and_then(|r| r.definition.as_ref()).map(|d| (d.path.clone(), d.url.clone()));
    let method =
        ("argparse.ArgumentParser.add_argument".to_string(), "library/argparse.html#argparse.ArgumentParser.add_argument".to_string());
    assert_eq!(def("argparse add_argument"), Some(method.clone()));
    assert_eq!(def("argparse addArgument"), None, "the name as it is written, not another spelling of it");
    assert_eq!(def("argparse.ArgumentParser add_argument"), Some(method));
    // A Sphinx module is a definition: the page's section it opens.
    assert_eq!(def("argparse"), Some(("argparse".to_string(), "library/argparse.html#module-argparse".to_string())));
    // A page that does not define both: no definition; a plain word last is prose.
    assert_eq!(def("os add_argument"), None);
    assert_eq!(def("argparse arguments"), None);
    assert_eq!(def("argparse parse"), None);
}

#[test]
fn prose_after_an_entry_list_links_to_its_section_not_to_the_last_entry() {
    let page = page(
        "library/copy.html",
        r##"<html><body><div class="body"><section id="module-copy"><h1>copy — Shallow and deep copy operations</h1><p>Assignment statements do not copy objects.</p>
        <dl class="py function"><dt class="sig sig-object py" id="copy.deepcopy">copy.deepcopy(x)</dt><dd><p>Return a deep copy of x.</p></dd></dl>
        <dl class="py exception"><dt class="sig sig-object py" id="copy.Error">exception copy.Error</dt><dd><p>Raised for module specific errors.</p></dd></dl>
        <p>Recursive objects may cause a recursive loop; the memo dictionary avoids it.</p>
        <section id="pickling"><h2>Pickling</h2><p>Classes can use the same interfaces.</p>
        <dl class="py class"><dt class="sig sig-object py" id="copy.Copier">class copy.Copier</dt><dd><p>A copier.</p>
        <dl class="py method"><dt class="sig sig-object py" id="copy.Copier.run">run()</dt><dd><p>Runs it.</p></dd></dl>
        <p>A copier keeps a ledger of its work.</p></dd></dl>
        <p>Reducers are looked up in the dispatch table.</p></section></section></div></body></html>"##,
    );
    let e = engine_from_docs(&[page], &sift_build::BuildOptions::default()).unwrap();
    let subs = |q: &str| search(&e, q).results[0].sub_results.iter().map(|s| s.url.clone()).collect::<Vec<_>>();
    // The module's prose after its entries: the page, no entry.
    assert!(subs("recursive loop memo").iter().all(|u| !u.contains("copy.Error")), "{:?}", subs("recursive loop memo"));
    // A class's prose after its methods links to the class; a section's to the section.
    assert_eq!(subs("ledger").first().map(String::as_str), Some("library/copy.html#copy.Copier"));
    assert_eq!(subs("reducers dispatch").first().map(String::as_str), Some("library/copy.html#pickling"));
    let r = search(&e, "reducers dispatch");
    assert_eq!(r.results[0].sub_results[0].title, "Pickling");
}

fn rustdoc(path: &str, kind: &str, h1: &str, text: &str) -> SourceDoc {
    page(
        path,
        &format!(
            r#"<html><body class="rustdoc {kind}"><main><h1 class="fqn"><span class="in-band">{h1}</span></h1><div class="docblock"><p>{text}</p></div></main></body></html>"#
        ),
    )
}

#[test]
fn a_module_is_found_by_its_path_after_an_item_of_the_same_name() {
    let docs = [
        rustdoc("std/ffi/index.html", "mod", "Module std::ffi", "Platform-specific types, as defined by C. FFI bindings."),
        rustdoc("std/ffi/struct.OsStr.html", "struct", "Struct std::ffi::OsStr", "Borrowed reference to an OS string. Used in FFI."),
        rustdoc(
            "std/vec/index.html",
            "mod",
            "Module std::vec",
            "A contiguous growable array type with heap-allocated contents, vec vec vec.",
        ),
        rustdoc("std/macro.vec.html", "macro", "Macro std::vec", "Creates a Vec containing the arguments."),
        rustdoc("std/ffi/fn.ffi_helper.html", "fn", "Function std::ffi::ffi_helper", "Helps with FFI."),
    ];
    let e = engine_from_docs(&docs, &sift_build::BuildOptions::default()).unwrap();
    let first = |q: &str| search(&e, q).results[0].definition.as_ref().map(|d| (d.path.clone(), d.kind.clone()));
    assert_eq!(first("std::ffi"), Some(("std::ffi".into(), "module".into())));
    assert_eq!(first("ffi"), Some(("std::ffi".into(), "module".into())));
    // An acronym is a word: looked up whole, not completed to `ffi_helper`.
    assert_eq!(first("FFI"), Some(("std::ffi".into(), "module".into())));
    let r = search(&e, "FFI");
    assert!(r.results.iter().filter_map(|x| x.definition.as_ref()).all(|d| d.path == "std::ffi"), "{:?}", r.results);
    // A module holds definitions: an item of its name comes first.
    assert_eq!(first("vec"), Some(("std::vec".into(), "macro".into())));
    // While a path is typed, its members are offered.
    assert_eq!(first("std::ffi::Os").map(|d| d.0), Some("std::ffi::OsStr".into()));
}

#[test]
fn a_source_listing_ranks_below_the_documentation_of_the_same_item() {
    let e = engine();
    let r = search(&e, "with_capacity capacity");
    let ranked = ids(&r);
    let doc = ranked.iter().position(|&i| i == "std/vec/struct.Vec.html").unwrap();
    let src = ranked.iter().position(|&i| i == "src/alloc/vec/mod.rs.html").unwrap();
    assert!(doc < src, "{ranked:?}");
    // A page that is all code, marked by no generator, weighs like one.
    let r = search(&e, "current working directory getcwd");
    let ranked = ids(&r);
    let doc = ranked.iter().position(|&i| i == "library/os.html").unwrap();
    let src = ranked.iter().position(|&i| i == "_modules/os.html").unwrap();
    assert!(doc < src, "{ranked:?}");
}

#[test]
fn an_identifier_that_is_an_english_word_still_finds_prose_for_prose() {
    let e = engine();
    let r = search(&e, "sorted");
    assert_eq!(first_definition(&r).1.map(|d| d.2), Some("library/functions.html#sorted"));
    let r = search(&e, "how to sort a list");
    assert_eq!(r.results[0].id, "howto/sorting.html");
    assert!(r.results.iter().all(|x| x.definition.is_none()), "prose names no definition");
}

#[test]
fn filters_and_exclusions_still_hold_for_definitions() {
    let e = engine();
    let r = search_json(&e, r#"{"query": "getcwd", "filters": {"folder": ["tutorial"]}}"#).unwrap();
    assert!(r.results.iter().all(|x| x.id.starts_with("tutorial/")), "{:?}", ids(&r));
    let r = search_json(&e, r#"{"query": "getcwd -os"}"#).unwrap();
    assert!(!ids(&r).contains(&"library/os.html"), "an excluded page stays out: {:?}", ids(&r));
    // Meaning alone is not asked to look identifiers up.
    let r = run(&e, &{
        let mut q = SearchRequest::new("os.getcwd");
        q.mode = Some("lexical".into());
        q
    })
    .unwrap();
    assert_eq!(r.results[0].id, "library/os.html");
}

#[test]
fn odd_identifier_like_input_is_answered_without_a_definition_or_an_error() {
    let e = engine();
    for q in ["::", "..", "a..b", "os.", "#", "/", "x::y::z::w::v::u::t::s::r::q::p::o::n::m", "getcwd(", "os.getcwd)"] {
        let r = run(&e, &SearchRequest::new(q)).unwrap_or_else(|err| panic!("{q}: {err}"));
        assert!(r.results.iter().all(|x| x.definition.as_ref().is_none_or(|d| !d.path.is_empty())), "{q}");
    }
}
