//! Which language a bundle is analysed as, and what that means: the stemmer and the stop
//! words. English is built in everywhere (its stemmer, rust-stemmers' Snowball English,
//! fixes the terms of every English bundle). The other Snowball languages come from
//! `frostem`, compiled in with the `languages` feature: native builds and the workers
//! have it, and the browser runtime a page loads has it only when the bundle's language
//! needs it (the English runtime does not carry 33 stemmers). A browser runtime without
//! them can be handed one language's stemmer by its host instead ([`set_host_stemmer`]:
//! `sift.js` loads a small module per language). A bundle's stop words travel in its
//! manifest, so no runtime carries lists for languages it never meets.

use std::borrow::Cow;

/// Languages with a Snowball stemmer, by ISO 639-1 code (ISO 639-3 where there is none),
/// whatever this build compiled in. English is not listed: it is always there.
pub const STEMMED_LANGUAGES: &[&str] = &[
    "ar", "ca", "cs", "da", "de", "el", "eo", "es", "et", "eu", "fa", "fi", "fr", "ga", "hi", "hu", "hy", "id", "it", "lt", "nb", "ne",
    "nl", "nn", "no", "pl", "pt", "ro", "ru", "sr", "sv", "ta", "tr", "uk", "yi",
];

/// The language part of a BCP 47 tag, lowercased: `pt-BR` → `pt`, `zh_Hant` → `zh`. None
/// for something that is no language tag.
pub fn primary_subtag(tag: &str) -> Option<String> {
    let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    let ok = (2..=3).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_lowercase());
    ok.then_some(primary)
}

#[derive(Clone, Copy)]
pub(super) enum Stemmer {
    English,
    #[cfg(feature = "languages")]
    Snowball(frostem::Stemmer),
    /// The host's stemmer of this language (one of [`STEMMED_LANGUAGES`]).
    #[cfg_attr(feature = "languages", allow(dead_code))]
    Host(&'static str),
    None,
}

/// A stemmer the host provides for languages this build did not compile in: `has(code)`
/// says whether it stems that language now, `stem(code, word)` stems one word (None: leave
/// it). It must stem as `frostem` does, or query words miss the terms the build made.
#[derive(Clone, Copy)]
pub struct HostStemmer {
    pub has: fn(&str) -> bool,
    pub stem: fn(&str, &str) -> Option<String>,
}

static HOST: std::sync::OnceLock<HostStemmer> = std::sync::OnceLock::new();

/// Install the host's stemmer (once; later calls are ignored). Analyzers made after it ask
/// the host for a language this build lacks instead of failing with `StemmerMissing`.
pub fn set_host_stemmer(host: HostStemmer) {
    let _ = HOST.set(host);
}

impl Stemmer {
    /// The stemmer of `language` (a primary subtag). Err: the language has one, but this
    /// build did not compile it in.
    pub(super) fn of(language: &str) -> Result<Stemmer, ()> {
        if language == "en" {
            return Ok(Stemmer::English);
        }
        if !STEMMED_LANGUAGES.contains(&language) {
            return Ok(Stemmer::None);
        }
        #[cfg(feature = "languages")]
        {
            // Norwegian Bokmål and Nynorsk share Snowball's Norwegian.
            let name = if matches!(language, "nb" | "nn") { "no" } else { language };
            frostem::Algorithm::from_name(name).map(|a| Stemmer::Snowball(frostem::Stemmer::new(a))).map_err(|_| ())
        }
        #[cfg(not(feature = "languages"))]
        {
            let code = STEMMED_LANGUAGES.iter().find(|l| **l == language).copied();
            match (code, HOST.get()) {
                (Some(code), Some(host)) if (host.has)(code) => Ok(Stemmer::Host(code)),
                _ => Err(()),
            }
        }
    }

    pub(super) fn stem<'a>(&self, word: &'a str) -> Cow<'a, str> {
        match self {
            Stemmer::English => english().stem(word),
            #[cfg(feature = "languages")]
            Stemmer::Snowball(s) => s.stem(word),
            Stemmer::Host(code) => HOST.get().and_then(|h| (h.stem)(code, word)).map_or(Cow::Borrowed(word), Cow::Owned),
            Stemmer::None => Cow::Borrowed(word),
        }
    }
}

fn english() -> &'static rust_stemmers::Stemmer {
    static STEMMER: std::sync::OnceLock<rust_stemmers::Stemmer> = std::sync::OnceLock::new();
    STEMMER.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}
