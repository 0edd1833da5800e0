//! Pages of the generators Sift meets cut into sections.

use super::*;

fn ex(html: &str) -> SourceDoc {
    extract(html.as_bytes(), "guide/page.html", &HtmlOptions::default()).unwrap().0
}

#[test]
fn main_content_sections_and_anchors() {
    let d = ex(r##"<html lang="en"><head><title>Site — Page</title><meta name="description" content="About pages">
        <meta name="type" content="guide"></head><body>
        <nav>Home | Menu</nav>
        <main><h1>Install Guide<a class="headerlink" href="#x">¶</a></h1><p>Intro text.</p>
        <section id="linux"><h2>On Linux</h2><p>Use apt.</p><script>evil()</script></section>
        <h2 id="mac">On macOS</h2><p>Use brew.</p>
        <dl><dt id="os.getcwd">os.getcwd()</dt><dd>Return the cwd.</dd></dl></main>
        <footer>© 2024</footer></body></html>"##);
    assert_eq!(d.title, "Install Guide");
    assert_eq!(d.id, "guide/page.html");
    assert_eq!(d.metadata["type"], vec!["guide"]);
    assert_eq!(d.metadata["folder"], vec!["guide"]);
    assert_eq!(d.metadata["language"], vec!["en"]);
    let all: String = d.sections.iter().map(|s| format!("[{}#{:?}] {} ", s.heading, s.anchor, s.text)).collect();
    assert!(!all.contains("Menu") && !all.contains("evil") && !all.contains('¶') && !all.contains('©'), "{all}");
    let linux = d.sections.iter().find(|s| s.heading == "On Linux").unwrap();
    assert_eq!(linux.anchor.as_deref(), Some("linux"));
    assert_eq!(linux.text, "Use apt.");
    assert_eq!(d.sections.iter().find(|s| s.heading == "On macOS").unwrap().anchor.as_deref(), Some("mac"));
    let api = d.sections.iter().find(|s| s.heading == "os.getcwd()").unwrap();
    assert_eq!((api.anchor.as_deref(), api.text.as_str()), (Some("os.getcwd"), "Return the cwd."));
}

#[test]
fn a_headings_permalink_is_no_text_whichever_generator_wrote_it() {
    let d = ex(r##"<html><body><main><h1>Guide</h1><p>Intro.</p>
        <h2 class="anchor" id="requirements">Requirements<a href="#requirements" class="hash-link" aria-label="Direct link to Requirements" title="Direct link to Requirements">&#8203;</a></h2><p>Node 18.</p>
        <h2 id="try-it" tabindex="-1">Try It Online <a class="header-anchor" href="#try-it" aria-label="Permalink to &quot;Try It Online&quot;">&#8203;</a></h2><p>In a browser.</p>
        <div class="sl-heading-wrapper level-h2"><h2 id="rotate">Rotate</h2><a class="sl-anchor-link" href="#rotate"><span aria-hidden="true" class="sl-anchor-icon"><svg></svg></span><span class="sr-only">Section titled “Rotate”</span></a></div><p>Turn it.</p>
        <h2 id="cells">Cells<a class="anchor-link" href="#cells">¶</a></h2><p>Run them.</p>
        </main></body></html>"##);
    let got: Vec<(&str, Option<&str>, &str)> =
        d.sections.iter().skip(1).map(|s| (s.heading.as_str(), s.anchor.as_deref(), s.text.as_str())).collect();
    assert_eq!(
        got,
        [
            ("Requirements", Some("requirements"), "Node 18."),
            ("Try It Online", Some("try-it"), "In a browser."),
            ("Rotate", Some("rotate"), "Turn it."),
            ("Cells", Some("cells"), "Run them.")
        ]
    );
}

#[test]
fn docusauruss_tables_of_contents_and_page_tools_are_no_text() {
    let d = ex(r##"<html><body><main class="docMainContainer"><div class="row"><div class="col docItemCol">
        <span class="theme-doc-version-badge badge">Version: 3.1</span>
        <article><div class="theme-doc-toc-mobile tocCollapsible"><button>On this page</button><ul class="table-of-contents"><li><a href="#setup">Setup</a></li></ul></div>
        <div class="theme-doc-markdown markdown"><header><h1>Caching</h1></header><p>Keep answers.</p>
        <h2 class="anchor" id="setup">Setup<a href="#setup" class="hash-link">&#8203;</a></h2><p>Turn it on.</p></div>
        <div class="theme-doc-footer"><a href="https://x/edit" class="theme-edit-this-page">Edit this page</a><span class="theme-last-updated">Last updated on Jan 1</span></div></article>
        </div><div class="col col--3"><div class="tableOfContents theme-doc-toc-desktop"><ul class="table-of-contents"><li><a href="#setup">Setup</a></li></ul></div></div></div></main></body></html>"##);
    let got: Vec<(&str, &str)> = d.sections.iter().map(|s| (s.heading.as_str(), s.text.as_str())).collect();
    assert_eq!(got, [("", "Keep answers."), ("Setup", "Turn it on.")]);
}

#[test]
fn a_heading_links_to_an_anchor_inside_it_before_it_or_on_its_section() {
    let d = ex(r##"<html><body><main><h1>Reference</h1>
        <div class="toc"><p><b>Table of Contents</b></p><dl><dt><a href="#_console_basics">1.1. Console basics</a></dt></dl></div>
        <div class="section"><div class="titlepage"><h2 class="title"><a id="_console_basics"></a>1.1. Console basics</h2></div><p>Shells.</p></div>
        <a name="legacy"></a><h2>Legacy anchor</h2><p>Old generators.</p>
        <section id="modern"><h2>Section id</h2><p>Sphinx.</p></section>
        <h2 id="own"><a id="inner"></a>Own id</h2><p>The heading's own id wins.</p>
        <h3 class="title"><a id="_unclosed_one"/>2.1. Unclosed one</h3><p>DocBook writes XHTML.</p>
        <h3 class="title"><a id="_unclosed_two"/>2.2. Unclosed two</h3><p>Parsed as HTML.</p>
        </main></body></html>"##);
    assert!(d.sections.iter().all(|s| !s.text.contains("Table of Contents")), "a table of contents is navigation");
    let anchors: Vec<(&str, Option<&str>)> =
        d.sections.iter().filter(|s| !s.heading.is_empty()).map(|s| (s.heading.as_str(), s.anchor.as_deref())).collect();
    assert_eq!(
        anchors,
        [
            ("1.1. Console basics", Some("_console_basics")),
            ("Legacy anchor", Some("legacy")),
            ("Section id", Some("modern")),
            ("Own id", Some("own")),
            ("2.1. Unclosed one", Some("_unclosed_one")),
            ("2.2. Unclosed two", Some("_unclosed_two"))
        ]
    );
}

#[test]
fn sift_annotations_mark_the_body_ignore_weigh_and_tag_as_pagefind_s_do() {
    let page = r##"<html><head><title>T</title><meta data-sift-filter="author[content]" content="Ada" name="x-author"></head><body>
        <div>Outside the marked body.</div>
        <section data-sift-body><h1>Guide</h1><p>Intro <b data-sift-weight="3">heavy words</b> plain.</p>
          <aside data-sift-ignore>not indexed <span data-sift-meta="kept">still read</span></aside>
          <div data-sift-ignore="all"><span data-sift-filter="tag">Hidden</span></div>
          <img alt="Diagram of pipes" data-sift-index-attrs="alt,title">
          <p data-sift-weight="eleven">Bad weight.</p>
          <span data-sift-filter="tag">one</span><span data-sift-filter="tag">two</span>
          <i data-sift-sort="date:2024-05-06" data-sift-meta="summary:Short, with a comma"></i>
          <i data-sift-sort="priority:3"></i>
        </section>
        <section data-sift-body><h2>Second part</h2><p>Joined.</p></section></body></html>"##;
    let (d, warnings) = extract(page.as_bytes(), "g.html", &HtmlOptions::default()).unwrap();
    let text: String = d.sections.iter().map(|s| format!("{} {} ", s.heading, s.text)).collect();
    assert!(!text.contains("Outside") && !text.contains("not indexed") && !text.contains("Hidden"), "{text}");
    assert!(text.contains("Diagram of pipes") && text.contains("Joined."), "{text}");
    assert_eq!(d.annotations.body, Some(true));
    assert_eq!(d.metadata["author"], ["Ada"]);
    assert_eq!(d.metadata["tag"], ["one", "two"], "not the tag inside ignore=all");
    assert_eq!(d.metadata["kept"], ["still read"], "meta inside a plain ignore is read");
    assert_eq!(d.metadata["summary"], ["Short, with a comma"]);
    assert_eq!(d.annotations.filters, ["author", "tag"]);
    assert_eq!(d.date.as_deref(), Some("2024-05-06"));
    assert_eq!(d.annotations.sorts, ["priority"]);
    let w = &d.annotations.weighted;
    assert_eq!(w.len(), 1);
    assert_eq!(&d.sections[w[0].section].text[w[0].start..w[0].end], "heavy words");
    assert_eq!(w[0].weight, 3.0);
    assert!(d.sections.iter().all(|s| s.text.chars().all(|c| (c as u32) < 0xF0000)), "no markers left");
    assert!(warnings.iter().any(|w| w.contains("\"eleven\"") && w.contains("0 to 10")), "{warnings:?}");
    // The same page in Pagefind's spelling reads the same.
    let pf = extract(page.replace("data-sift-", "data-pagefind-").as_bytes(), "g.html", &HtmlOptions::default()).unwrap().0;
    assert_eq!((pf.sections, pf.metadata, pf.annotations), (d.sections, d.metadata, d.annotations));
    // A page without a marked body says so (the site may leave it out).
    assert_eq!(ex("<main><p>Plain.</p></main>").annotations.body, Some(false));
}

#[test]
fn script_text_is_not_content_but_escaped_text_is_kept_verbatim() {
    let d = ex("<main><p>Write &lt;script&gt;alert(1)&lt;/script&gt; to test.</p><script>alert(2)</script></main>");
    let text = &d.sections[0].text;
    assert!(text.contains("<script>alert(1)</script>"), "text is plain text, escaped later: {text}");
    assert!(!text.contains("alert(2)"));
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 20_000;
    let html = format!("<main>{}deep{}</main>", "<div>".repeat(depth), "</div>".repeat(depth));
    let d = ex(&html);
    assert!(d.sections.iter().any(|s| s.text.contains("deep")));
}

#[test]
fn a_page_marked_noindex_is_left_out_unless_the_build_asks_for_it() {
    let page =
        |robots: &str| format!("<html><head><meta name=\"robots\" content=\"{robots}\"></head><main><h1>T</h1><p>Text.</p></main></html>");
    let plain = HtmlOptions::default();
    for robots in ["noindex", "noindex,follow", "NOINDEX, nofollow", "none"] {
        assert_eq!(extract(page(robots).as_bytes(), "p.html", &plain).err(), Some(ExtractError::NoIndex), "{robots}");
    }
    for robots in ["index, follow", "nofollow", "noarchive", ""] {
        assert!(extract(page(robots).as_bytes(), "p.html", &plain).is_ok(), "{robots}");
    }
    let all = HtmlOptions { index_noindex: true, ..HtmlOptions::default() };
    let (d, _) = extract(page("noindex").as_bytes(), "p.html", &all).unwrap();
    assert_eq!(d.title, "T");
    // Another tool's directive, or the word in text, is not the page's own robots tag.
    let other = "<meta name=\"googlebot-news\" content=\"noindex\"><main><p>noindex</p></main>";
    assert!(extract(other.as_bytes(), "p.html", &plain).is_ok());
}

#[test]
fn absurd_nesting_is_skipped_with_a_warning_not_parsed_for_minutes() {
    let depth = 100_000;
    let html = format!("<main>{}deep{}</main>", "<div>".repeat(depth), "</div>".repeat(depth));
    let t = std::time::Instant::now();
    match extract(html.as_bytes(), "deep.html", &HtmlOptions::default()) {
        Err(ExtractError::Skip(w)) => assert!(w.contains("deep.html") && w.contains("nested"), "{w}"),
        other => panic!("expected a skip, got {other:?}"),
    }
    assert!(t.elapsed().as_secs() < 5, "the estimate is linear");
    // Real pages are nowhere near: many unclosed <p>/<li>, void and self-closing tags.
    let page = format!("<main>{}<div/><img src=x><!-- <div><div> --></main>", "<p>text<li>item<br>".repeat(50_000));
    assert!(nesting_depth(page.as_bytes()) < 5);
}

#[test]
fn empty_and_binary_pages_are_skipped() {
    assert!(matches!(extract(b"<html></html>", "e.html", &HtmlOptions::default()), Ok(_) | Err(ExtractError::Skip(_))));
    assert!(matches!(extract(b"\x89PNG\x00\x00", "img.html", &HtmlOptions::default()), Err(ExtractError::Skip(_))));
}

mod api_entries {
    use super::*;
    use sift_base::Symbol;

    fn symbols(html: &str, path: &str) -> Vec<(String, Option<String>, String, String)> {
        let d = extract(html.as_bytes(), path, &HtmlOptions::default()).unwrap().0;
        d.sections.into_iter().filter_map(|s| s.symbol.map(|Symbol { path, kind }| (s.heading, s.anchor, path, kind))).collect()
    }

    #[test]
    fn sphinx_entries_are_definitions_with_their_dotted_path_and_kind() {
        let page = r##"<html><body><div class="body"><section id="module-os.path"><h1>os — Miscellaneous interfaces</h1><p>Intro.</p>
            <dl class="py function"><dt class="sig sig-object py" id="os.getcwd"><span class="sig-prename">os.</span><span class="sig-name">getcwd</span>()<a class="headerlink" href="#os.getcwd">¶</a></dt>
            <dd><p>Return the current working directory.</p></dd></dl>
            <dl class="py class"><dt class="sig sig-object py" id="os.DirEntry"><em>class</em> os.DirEntry</dt><dd>An entry.</dd></dl>
            <dl class="c function"><dt class="sig sig-object c" id="c.PyList_New">PyObject *PyList_New(Py_ssize_t len)</dt><dd>New list.</dd></dl>
            <dl class="std cmdoption"><dt class="sig sig-object std" id="cmdoption-c">-c command</dt><dd>Run.</dd></dl>
            <section id="module-not a path"><h2>Other</h2><p>Text.</p></section>
            </section></div></body></html>"##;
        let s = symbols(page, "library/os.html");
        let got: Vec<(&str, &str, &str)> = s.iter().map(|(_, a, p, k)| (a.as_deref().unwrap(), p.as_str(), k.as_str())).collect();
        assert_eq!(
            got,
            [
                ("module-os.path", "os.path", "module"),
                ("os.getcwd", "os.getcwd", "function"),
                ("os.DirEntry", "os.DirEntry", "class"),
                ("c.PyList_New", "PyList_New", "function")
            ]
        );
    }

    #[test]
    fn the_text_after_an_entry_list_is_its_sections_not_the_last_entrys() {
        let page = r##"<html><body><div class="body"><section id="module-copy"><h1>copy — Shallow and deep copy operations</h1><p>Intro.</p>
            <dl class="py function"><dt class="sig sig-object py" id="copy.copy">copy.copy(x)</dt><dd><p>Return a shallow copy.</p></dd>
            <dt class="sig sig-object py" id="copy.copy2">copy.copy2(x)</dt><dd><p>Another.</p></dd></dl>
            <dl class="py exception"><dt class="sig sig-object py" id="copy.Error">exception copy.Error</dt><dd><p>Raised for errors.</p></dd></dl>
            <p>The difference between shallow and deep copying.</p>
            <section id="usage"><h2>Usage</h2><p>Use it.</p>
            <dl class="py class"><dt class="sig sig-object py" id="copy.Copier">class copy.Copier</dt><dd><p>A copier.</p>
              <dl class="py method"><dt class="sig sig-object py" id="copy.Copier.run">run()</dt><dd><p>Runs.</p></dd></dl>
              <p>More about copiers.</p></dd></dl>
            <p>After the class.</p>
            <dl class="py function"><dt class="sig sig-object py" id="copy.last">copy.last()</dt><dd><p>Last.</p></dd></dl>
            </section></section></div></body></html>"##;
        let d = extract(page.as_bytes(), "library/copy.html", &HtmlOptions::default()).unwrap().0;
        let got: Vec<(&str, Option<&str>, &str, bool)> =
            d.sections.iter().map(|s| (s.heading.as_str(), s.anchor.as_deref(), s.text.as_str(), s.symbol.is_some())).collect();
        assert_eq!(
            got,
            [
                // Sphinx's module target: the module is defined where its section opens.
                ("", Some("module-copy"), "Intro.", true),
                ("copy.copy(x)", Some("copy.copy"), "Return a shallow copy.", true),
                ("copy.copy2(x)", Some("copy.copy2"), "Another.", true),
                ("exception copy.Error", Some("copy.Error"), "Raised for errors.", true),
                // The section goes on, untitled: its heading is indexed and shown once.
                ("", Some("module-copy"), "The difference between shallow and deep copying.", false),
                ("Usage", Some("usage"), "Use it.", false),
                ("class copy.Copier", Some("copy.Copier"), "A copier.", true),
                ("run()", Some("copy.Copier.run"), "Runs.", true),
                // A class's text after its methods is the class's, and the section's after it.
                ("", Some("copy.Copier"), "More about copiers.", false),
                ("", Some("usage"), "After the class.", false),
                // A list with nothing after it leaves no empty section.
                ("copy.last()", Some("copy.last"), "Last.", true),
            ]
        );
    }

    #[test]
    fn a_rustdoc_headings_notable_traits_tooltip_is_not_its_text() {
        let page = r##"<html><body class="rustdoc trait"><main><h1 class="fqn">Trait <a href="#">Error</a></h1><p>Errors.</p>
            <section id="method.from-4" class="method trait-impl"><a href="#method.from-4" class="anchor"></a><h4 class="code-header">fn <a class="fnname" href="#">from</a>(err: &amp;str) -&gt; Box&lt;dyn Error&gt;<span class="notable-traits"><span class="notable-traits-tooltip">ⓘ<span class="notable-traits-tooltiptext"><span class="docblock"><span class="notable">Notable traits for Box&lt;I, A&gt;</span><code class="content">impl&lt;I, A&gt; Iterator for Box&lt;I, A&gt;</code></span></span></span></span></h4></section>
            <div class="docblock"><p>Converts a str into a box of dyn Error.</p></div></main></body></html>"##;
        let doc = extract(page.as_bytes(), "std/error/trait.Error.html", &HtmlOptions::default()).unwrap().0;
        let sec = doc.sections.iter().find(|s| s.anchor.as_deref() == Some("method.from-4")).expect("the method's section");
        assert_eq!(sec.heading, "fn from(err: &str) -> Box<dyn Error>");
        assert!(doc.sections.iter().all(|s| !s.text.contains("Notable") && !s.text.contains("Iterator")), "{:?}", doc.sections);
    }

    #[test]
    fn rustdoc_pages_and_members_are_definitions_with_their_full_path() {
        let page = r##"<html><body class="rustdoc struct"><main><section id="main-content" class="content">
            <h1 class="fqn"><span class="in-band">Struct <a href="../index.html">std</a>::<wbr><a href="index.html">vec</a>::<wbr><a class="struct" href="#">Vec</a><button id="copy-path">Copy item path</button></span></h1>
            <span class="out-of-band"><span class="since" title="Stable since Rust version 1.0.0">1.0.0</span> · <a class="srclink" href="../src/x.rs.html">source</a> · <a id="toggle-all-docs" href="javascript:void(0)">[<span class="inner">&#x2212;</span>]</a></span>
            <details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand description</span></summary>
            <div class="docblock"><p>A contiguous growable array type.</p></div></details>
            <section id="method.with_capacity" class="method has-srclink"><span class="rightside"><a class="srclink" href="../src/x.rs.html">source</a></span><a href="#method.with_capacity" class="anchor"></a><h4 class="code-header">pub fn <a href="#method.with_capacity" class="fnname">with_capacity</a>(capacity: usize) -&gt; Vec&lt;T&gt;</h4></section>
            <div class="docblock"><p>Constructs a new, empty Vec with at least the specified capacity.</p></div>
            <section id="method.clone-1" class="method"><h4 class="code-header">fn clone(&amp;self) -&gt; Self</h4></section><div class="docblock"><p>Clones.</p></div>
            <h2 id="implementations" class="small-section-header">Implementations</h2><p>Impls.</p>
            </section></main></body></html>"##;
        let s = symbols(page, "std/vec/struct.Vec.html");
        // The page's chrome is no text of it: version, source link, toggles.
        let text = extract(page.as_bytes(), "std/vec/struct.Vec.html", &HtmlOptions::default()).unwrap().0.sections[0].text.clone();
        assert_eq!(text, "A contiguous growable array type.");
        let got: Vec<(Option<&str>, &str, &str)> = s.iter().map(|(_, a, p, k)| (a.as_deref(), p.as_str(), k.as_str())).collect();
        assert_eq!(
            got,
            [
                (None, "std::vec::Vec", "struct"),
                (Some("method.with_capacity"), "std::vec::Vec::with_capacity", "method"),
                (Some("method.clone-1"), "std::vec::Vec::clone", "method")
            ]
        );
        // A primitive's page names it after two words.
        let prim = r##"<html><body class="rustdoc primitive"><main><h1 class="fqn"><span class="in-band">Primitive Type <a class="primitive" href="#">str</a></span></h1><p>String slices.</p>
            <section id="method.split_whitespace" class="method"><h4 class="code-header">pub fn split_whitespace(&amp;self)</h4></section><p>Splits.</p></main></body></html>"##;
        let paths: Vec<String> = symbols(prim, "std/primitive.str.html").into_iter().map(|s| s.2).collect();
        assert_eq!(paths, ["str", "str::split_whitespace"]);
        // A source listing is marked as such: it weighs like navigation.
        let src = extract(
            b"<html><body class=\"rustdoc source\"><main><pre>fn main() {}</pre><p>x</p></main></body></html>",
            "src/a.rs.html",
            &HtmlOptions::default(),
        )
        .unwrap()
        .0;
        assert_eq!(src.link_density, 1.0);
        // A page that is all code, marked by no generator, is a listing too; a page of
        // examples with prose between them is not.
        let code = "<pre>def getcwd(): return _getcwd()  # the current working directory\ndef chdir(path): _chdir(path)</pre>";
        let listing = extract(
            format!("<html><body><div class=\"body\"><h1>Source code for os</h1><div class=\"highlight\">{code}</div></div></body></html>")
                .as_bytes(),
            "_modules/os.html",
            &HtmlOptions::default(),
        )
        .unwrap()
        .0;
        assert_eq!(listing.link_density, 1.0);
        let examples = extract(format!("<html><body><main><h1>Examples</h1><p>First, read the directory you are in, then change to another one.</p>{code}<p>The second call returns the new directory: a relative path now resolves against it.</p></main></body></html>").as_bytes(), "examples.html", &HtmlOptions::default()).unwrap().0;
        assert_eq!(examples.link_density, 0.0);
    }

    #[test]
    fn javadoc_typedoc_and_doxygen_members_are_definitions() {
        let javadoc = r##"<html><head><meta name="generator" content="javadoc/ClassWriterImpl"></head><body class="class-declaration-page"><main>
            <div class="header"><div class="sub-title">Package java.util</div><h1 class="title">Class ArrayList&lt;E&gt;</h1></div>
            <section class="detail" id="add(E)"><h3>add</h3><div class="block">Appends the element.</div></section>
            <section class="detail" id="size()"><h3>size</h3><div class="block">The size.</div></section></main></body></html>"##;
        let s = symbols(javadoc, "java/util/ArrayList.html");
        let got: Vec<(&str, &str)> = s.iter().map(|(_, _, p, k)| (p.as_str(), k.as_str())).collect();
        assert_eq!(got, [("java.util.ArrayList", "class"), ("java.util.ArrayList.add", "method"), ("java.util.ArrayList.size", "method")]);

        let typedoc = r##"<html><head><meta name="generator" content="TypeDoc 0.25"></head><body><main><h1>Class Engine</h1>
            <section class="tsd-panel tsd-member tsd-kind-method tsd-parent-kind-class"><a id="search" class="tsd-anchor"></a><h3 class="tsd-anchor-link">search</h3><p>Searches.</p></section>
            </main></body></html>"##;
        let s = symbols(typedoc, "classes/Engine.html");
        assert_eq!(s.last().map(|(_, a, p, k)| (a.as_deref(), p.as_str(), k.as_str())), Some((Some("search"), "Engine.search", "method")));

        let doxygen = r##"<html><head><meta name="generator" content="Doxygen 1.9.4"></head><body><div class="contents"><h1>ns::Engine Class Reference</h1>
            <a id="a5b2c"></a><h2 class="memtitle"><span class="permalink"><a href="#a5b2c">&#9670;&nbsp;</a></span>search()</h2><div class="memdoc">Searches.</div>
            </div></body></html>"##;
        let s = symbols(doxygen, "classns_1_1Engine.html");
        assert_eq!(
            s.last().map(|(_, a, p, k)| (a.as_deref(), p.as_str(), k.as_str())),
            Some((Some("a5b2c"), "ns::Engine.search", "member"))
        );
    }

    #[test]
    fn a_heading_is_a_definition_only_when_it_is_code_naming_its_id() {
        let page = r##"<html><body><main><h1>API</h1>
            <h3 id="parse"><code>parse(text)</code></h3><p>Parses.</p>
            <h3 id="installation">Installation</h3><p>Run it.</p>
            <h3 id="parse-options"><code>other()</code></h3><p>Unrelated id.</p>
            <dl><dt id="json.dumps">json.dumps(obj)</dt><dd>Serialise.</dd><dt id="glossary-term">term</dt><dd>A word.</dd></dl>
            </main></body></html>"##;
        let s = symbols(page, "api.html");
        let got: Vec<(&str, &str)> = s.iter().map(|(_, _, p, k)| (p.as_str(), k.as_str())).collect();
        assert_eq!(got, [("parse", "heading"), ("json.dumps", "entry")]);
    }
}
