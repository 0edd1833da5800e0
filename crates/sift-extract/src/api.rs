//! API entries: which sections of a page define an identifier, with its full path and
//! kind, recognised the way documentation generators mark them up.
//!
//! - Sphinx: `<dl class="py function"><dt class="sig sig-object" id="os.getcwd">`: the id
//!   is the full dotted path (the C domain's ids start with `c.`), the `dl`'s second class
//!   the kind. A module is the section its heading opens, `<section id="module-os.path">`.
//! - rustdoc: the page's `<h1 class="fqn">` says the item (`Struct std::vec::Vec`), its
//!   `<body class="rustdoc struct">` the kind; members are headings under
//!   `id="method.with_capacity"` (also `tymethod.`, `associatedtype.`, `variant.`, …).
//! - Javadoc: `<meta name="generator" content="javadoc…">`; the page's `<h1>` names the
//!   class (`Class ArrayList<E>`), its package `Package java.util`; members are headings
//!   under ids like `add(E)`.
//! - TypeDoc: members in `section.tsd-kind-<kind>` under the page's `Class Foo` heading.
//! - Doxygen: `h2.memtitle` headings under the page title `ns::Foo Class Reference`.
//! - Anything else: a heading or term with an id whose text is code naming that id
//!   (`<h3 id="parse"><code>parse(text)</code></h3>`, `<dt id="json.dumps">json.dumps(obj)`).

use scraper::ElementRef;
use sift_base::Symbol;
use sift_text::symbol;

/// What a page says about itself that its entries' paths need.
#[derive(Debug, Default)]
pub(crate) struct PageApi {
    generator: Generator,
    /// The item the page documents (rustdoc, Javadoc, TypeDoc, Doxygen): its path and kind.
    item: Option<Symbol>,
}

#[derive(Debug, Default, PartialEq)]
enum Generator {
    #[default]
    Other,
    Rustdoc,
    Javadoc,
    Typedoc,
    Doxygen,
}

impl PageApi {
    /// The page's generator and the item it documents, from `<body class>`, the
    /// generator's `<meta>` and the first `<h1>` (its text, `h1`).
    /// `package`: Javadoc's package of the class (empty when none).
    pub fn new(body_class: &str, generator_meta: &str, h1: &str, package: &str) -> PageApi {
        let meta = generator_meta.to_ascii_lowercase();
        let mut body = body_class.split_whitespace();
        let generator = if body.next() == Some("rustdoc") {
            Generator::Rustdoc
        } else if meta.starts_with("javadoc") {
            Generator::Javadoc
        } else if meta.starts_with("typedoc") {
            Generator::Typedoc
        } else if meta.starts_with("doxygen") {
            Generator::Doxygen
        } else {
            Generator::Other
        };
        let item = match generator {
            // "Struct std::vec::Vec", "Function std::mem::swap", "Primitive Type str",
            // "Module std::ffi" (rustdoc's own search finds a module by its path too).
            Generator::Rustdoc => {
                let kind = body.next().map(|k| if k == "mod" { "module" } else { k }).unwrap_or("item");
                if kind == "item" {
                    return PageApi { generator, item: None };
                }
                h1.trim()
                    .rsplit_once(' ')
                    .map(|(_, p)| p)
                    .filter(|p| symbol::components(p).is_some())
                    .map(|p| Symbol { path: p.to_string(), kind: kind.to_string() })
            }
            // "Class ArrayList<E>", "Interface List<E>", "Class Foo<T>".
            Generator::Javadoc | Generator::Typedoc => h1.split_once(' ').and_then(|(kind, name)| {
                let name = name.split(['<', ' ']).next().unwrap_or("");
                let path = if package.is_empty() { name.to_string() } else { [package, ".", name].concat() };
                symbol::components(&path).map(|_| Symbol { path, kind: kind.to_ascii_lowercase() })
            }),
            // "ns::Foo Class Reference".
            Generator::Doxygen => h1.strip_suffix(" Reference").and_then(|t| t.rsplit_once(' ')).and_then(|(name, kind)| {
                symbol::components(name).map(|_| Symbol { path: name.to_string(), kind: kind.to_ascii_lowercase() })
            }),
            Generator::Other => None,
        };
        PageApi { generator, item }
    }

    /// The page itself as a definition (rustdoc's `fn.swap.html`, a Javadoc class).
    pub fn page_item(&self) -> Option<Symbol> {
        self.item.clone()
    }

    /// The definition a heading (or `dt`) makes, if any: `anchor` is the section's id,
    /// `text` the heading's text.
    pub fn entry(&self, heading: ElementRef, anchor: Option<&str>, text: &str) -> Option<Symbol> {
        let anchor = anchor?;
        let el = heading.value();
        // Sphinx (any generator may use its markup: Sphinx's is the common one).
        if let Some(path) = anchor.strip_prefix("module-").filter(|p| symbol::components(p).is_some()) {
            return Some(Symbol { path: path.to_string(), kind: "module".into() });
        }
        if el.name() == "dt" {
            if let Some(dl) = heading.parent().and_then(ElementRef::wrap).filter(|p| p.value().name() == "dl") {
                // (In the attribute's order: `classes()` is a set.)
                let classes: Vec<&str> = dl.value().attr("class").unwrap_or("").split_whitespace().collect();
                if let [domain @ ("py" | "c" | "cpp" | "js"), kind, ..] = classes[..] {
                    let path = match domain {
                        "c" | "cpp" => anchor.strip_prefix("c.").unwrap_or(anchor),
                        _ => anchor,
                    };
                    return symbol::components(path).map(|_| Symbol { path: path.to_string(), kind: kind.to_string() });
                }
            }
        }
        let member = |name: &str, kind: &str| {
            let item = self.item.as_ref()?;
            let path = [item.path.as_str(), if self.generator == Generator::Rustdoc { "::" } else { "." }, name].concat();
            symbol::components(&path).map(|_| Symbol { path, kind: kind.to_string() })
        };
        match self.generator {
            Generator::Rustdoc => {
                let (kind, name) = anchor.split_once('.')?;
                // `method.clone-1`: the second `clone` of the page (another impl's).
                let name = name.split('-').next().unwrap_or(name);
                let kind = match kind {
                    "method" | "tymethod" => "method",
                    "associatedtype" => "associated type",
                    "associatedconstant" => "associated constant",
                    "variant" => "variant",
                    "structfield" => "field",
                    _ => return None,
                };
                member(name, kind)
            }
            Generator::Javadoc => {
                // `add(E)`, `size()`, `MAX_VALUE`.
                let name = anchor.split('(').next().unwrap_or(anchor);
                let kind = if anchor.contains('(') {
                    if name == "<init>" {
                        return None;
                    } else {
                        "method"
                    }
                } else {
                    "field"
                };
                (text.trim() == name).then(|| member(name, kind)).flatten()
            }
            Generator::Typedoc => {
                let kind = heading
                    .ancestors()
                    .filter_map(ElementRef::wrap)
                    .find_map(|a| a.value().classes().find_map(|c| c.strip_prefix("tsd-kind-")))?
                    .replace('-', " ");
                let name = text.trim();
                (symbol::components(name).is_some()).then(|| member(name, &kind)).flatten()
            }
            Generator::Doxygen if el.classes().any(|c| c == "memtitle") => {
                // "◆ method()" (the permalink's diamond first).
                let name = text.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '_').trim();
                let name = name.split('(').next().unwrap_or(name).trim();
                let name = name.rsplit("::").next().unwrap_or(name);
                member(name, "member")
            }
            _ => generic(heading, anchor, text),
        }
    }
}

/// A heading or term whose text is code naming its own id: `<h3 id="parse"><code>parse(…)
/// </code></h3>`, or a `dt` whose id is a dotted path its text begins with.
fn generic(heading: ElementRef, anchor: &str, text: &str) -> Option<Symbol> {
    let text = text.trim();
    let name: String = text.chars().take_while(|&c| c.is_alphanumeric() || "_$.:#".contains(c)).collect();
    let parts = symbol::components(&name)?;
    let anchor_parts = symbol::components(anchor);
    let names_anchor = match &anchor_parts {
        Some(a) => a.ends_with(&parts) || parts.ends_with(a),
        None => false,
    };
    if !names_anchor {
        return None;
    }
    let first_child_is_code = heading
        .children()
        .find(|c| !c.value().as_text().is_some_and(|t| t.trim().is_empty()))
        .and_then(ElementRef::wrap)
        .is_some_and(|c| matches!(c.value().name(), "code" | "tt" | "kbd" | "samp"));
    let dotted_term = heading.value().name() == "dt" && anchor_parts.as_ref().is_some_and(|a| a.len() > 1);
    if !(first_child_is_code || dotted_term) {
        return None;
    }
    // The longer of the two is the full path (`json.dumps` as id, `dumps()` as text).
    let path = if anchor_parts.is_some_and(|a| a.len() > parts.len()) { anchor.to_string() } else { name };
    Some(Symbol { path, kind: if heading.value().name() == "dt" { "entry" } else { "heading" }.into() })
}
