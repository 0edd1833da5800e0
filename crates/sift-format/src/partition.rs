//! Long pages in position windows: how a page bigger than a doc part is cut
//! into parts, laid out so that the manifest need not say where each part begins.
//!
//! A page in parts has its positions laid out on a grid of `P` positions (the manifest's
//! `doc_store.part_positions`, one number for the bundle): the title and path lie below
//! `P`, and part `k` of the page begins at `(k + 1)·P` — its *window* — give or take an
//! offset the manifest lists for the few parts that do not (`part_offsets`). The engine
//! derives every part's first position from that, so the manifest every visitor fetches
//! first lists no position per part.
//!
//! How the builder gets there from the position layout of [`super::docstore`]
//! ([`plan_page`]):
//! - sections go into the current part while they end (trailing gap included) before the
//!   next window; the section that does not is moved to the next window (padding: the
//!   positions before a section carry no token, so moving a section later changes no
//!   phrase and no field; proximity across sections only grows);
//! - a section longer than a window is cut into pieces where windows end: before the first
//!   token at or past the window, after the whitespace before it (analysing the pieces one
//!   after another gives the section's tokens, so a phrase across the cut still matches).
//!   The piece starts at its first token: at the window exactly when that token follows
//!   whitespace, a little before when it is glued to the one before (`os.path`: the cut goes
//!   before `os`), which is an offset;
//! - a page that cannot be laid out so (a title or a heading longer than a window, a run
//!   of text without whitespace across a window) is stored whole.

use super::docstore::{body_start, pieces, ANALYSIS_PIECE_BYTES, POSITION_GAP};
use sift_base::doc::SourceDoc;
use sift_text::analyzer;
use std::ops::Range;

/// One section, or a piece of one, as a part stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPiece {
    pub section: usize,
    /// Byte range of the section's text (the whole text for a whole section).
    pub text: Range<usize>,
    /// Where it starts in the laid-out positions: the section's start, or a piece's first
    /// token.
    pub start: u32,
    /// A piece after a section's first: stored without the heading.
    pub continues: bool,
}

impl StoredPiece {
    /// Section `i` of `doc` whole, starting at `start`.
    fn whole(doc: &SourceDoc, i: usize, start: u32) -> StoredPiece {
        StoredPiece { section: i, text: 0..doc.sections[i].text.len(), start, continues: false }
    }
}

/// A long page's parts and the position layout that goes with them.
#[derive(Debug, Clone, PartialEq)]
pub struct PagePlan {
    pub parts: Vec<Vec<StoredPiece>>,
    /// Each part's first position in the laid-out space: `(k + 1)·P + offset`.
    pub first_pos: Vec<u32>,
    /// How far positions move: from each unpadded position on (the start of section 0 and of
    /// every section that begins a part), the shift added, in increasing order.
    shifts: Vec<(u32, u32)>,
}

impl PagePlan {
    /// A position of the page as [`super::docstore::visit_doc_fields`] laid it out, in the
    /// windowed layout.
    pub fn remap(&self, pos: u32) -> u32 {
        let i = self.shifts.partition_point(|&(from, _)| from <= pos);
        pos + if i == 0 { 0 } else { self.shifts[i - 1].1 }
    }
}

/// Part `k`'s window, where it begins unless it lists an offset.
pub fn window_start(part: usize, window: u32) -> Option<u32> {
    u32::try_from(part).ok()?.checked_add(1)?.checked_mul(window)
}

/// Cut `doc` into parts of `window` positions. `starts`: where each section starts and
/// `end`: where the page's positions end, as `visit_doc_fields` laid them out. None when
/// the page cannot be laid out in windows (it is then stored whole) or fits in one.
pub fn plan_page(doc: &SourceDoc, starts: &[u32], end: u32, window: u32) -> Option<PagePlan> {
    let n = doc.sections.len();
    if n == 0 || starts.len() != n || window <= 2 * POSITION_GAP || starts[0] > window {
        return None;
    }
    let section_end = |i: usize| if i + 1 < n { starts[i + 1] } else { end };
    let mut plan = PagePlan { parts: vec![Vec::new()], first_pos: vec![window], shifts: vec![(starts[0], window - starts[0])] };
    let mut shift = window - starts[0];
    // The current part's window ends here (where the next part's begins).
    let mut window_end = window_start(1, window)?;
    for i in 0..n {
        let (a, b) = (starts[i].checked_add(shift)?, section_end(i).checked_add(shift)?);
        if b <= window_end {
            plan.parts.last_mut()?.push(StoredPiece::whole(doc, i, a));
            continue;
        }
        let long = section_end(i) - starts[i] > window;
        if !long || body_start(a, &doc.sections[i].heading) >= window_end {
            // The section (or its heading) does not fit what is left: it begins the next part,
            // at that part's window (or where it is, should its natural start be past it).
            if !plan.parts.last()?.is_empty() {
                let at = window_end.max(a);
                if at - window_end >= window {
                    return None;
                }
                plan.parts.push(Vec::new());
                plan.first_pos.push(at);
                shift = at - starts[i];
                plan.shifts.push((starts[i], shift));
                window_end = window_start(plan.parts.len(), window)?;
            }
            let (a, b) = (starts[i] + shift, section_end(i) + shift);
            if b <= window_end {
                plan.parts.last_mut()?.push(StoredPiece::whole(doc, i, a));
                continue;
            }
            if body_start(a, &doc.sections[i].heading) >= window_end {
                return None; // a heading longer than a window
            }
        }
        window_end = cut_section(doc, i, starts[i] + shift, window, window_end, &mut plan)?;
    }
    (plan.parts.len() > 1).then_some(plan)
}

/// Cut section `i` (starting at `start`, in laid-out positions) into pieces where windows
/// end, the first piece going into the current part. Returns where the last piece's part's
/// window ends.
fn cut_section(doc: &SourceDoc, i: usize, start: u32, window: u32, mut window_end: u32, plan: &mut PagePlan) -> Option<u32> {
    let s = &doc.sections[i];
    let text = s.text.as_str();
    let mut piece_from = 0usize; // byte where the current piece begins
    let mut piece_start = start; // its first position
    let mut continues = false;
    // The body analysed a stretch at a time (as `visit_doc_fields` does): a huge section's
    // tokens are never all in memory. Each stretch begins after whitespace.
    let mut pos = body_start(start, &s.heading);
    let mut at = 0usize;
    let mut toks = Vec::new();
    for stretch in pieces(text, ANALYSIS_PIECE_BYTES) {
        toks.clear();
        let next = analyzer::positions(stretch, pos, &mut toks);
        for t in &toks {
            if t.pos < window_end {
                continue;
            }
            // The first token at or past the window: the piece ends after the whitespace
            // before it; the next piece begins with the token after that whitespace.
            let (cut, first) = cut_before(stretch, at, &toks, t.start, piece_from)?;
            // A part begins less than a window from its own window (the manifest's offsets
            // are so bounded): not so when a run without whitespace spans a window.
            if first >= window_end.checked_add(window)? || first.checked_add(window)? <= window_end || first <= piece_start {
                return None;
            }
            plan.parts.last_mut()?.push(StoredPiece { section: i, text: piece_from..cut, start: piece_start, continues });
            plan.parts.push(Vec::new());
            plan.first_pos.push(first);
            window_end = window_start(plan.parts.len(), window)?;
            (piece_from, piece_start, continues) = (cut, first, true);
            // (A stretch can hold tokens for more than one window only if a window is
            // shorter than a stretch; the loop goes on with the next token past the new end.)
        }
        at += stretch.len();
        pos = next;
    }
    plan.parts.last_mut()?.push(StoredPiece { section: i, text: piece_from..text.len(), start: piece_start, continues });
    // The section's end (its trailing gap included) must leave the next section room.
    Some(window_end)
}

/// Where to cut before the token at byte `token_at` of `stretch` (which begins at byte
/// `stretch_at` of the section's text): just after the last ASCII whitespace before it, if
/// that is past `piece_from`; else just after the first whitespace after it. Returns the cut
/// (a byte of the section's text) and the position of the first token after it.
fn cut_before(stretch: &str, stretch_at: usize, toks: &[analyzer::Token], token_at: usize, piece_from: usize) -> Option<(usize, u32)> {
    let bytes = stretch.as_bytes();
    let back = bytes[..token_at].iter().rposition(u8::is_ascii_whitespace).map(|w| w + 1);
    let cut = match back {
        Some(c) if stretch_at + c > piece_from => c,
        // A stretch begins after whitespace (or where the text does).
        None if stretch_at > piece_from => 0,
        _ => bytes[token_at..].iter().position(u8::is_ascii_whitespace).map(|w| token_at + w + 1)?,
    };
    let first = toks.iter().find(|t| t.start >= cut)?.pos;
    Some((stretch_at + cut, first))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docstore::visit_doc_fields;
    use crate::fields;
    use sift_base::doc::Section;

    const TEXT: &str = "The StateMachine's state-machine\tparses os.path.join  and HTTP/2; naïve café \
                        日本語のテキスト も 検索 できます。 parseHTTPResponse v1.2.3 — «quoted» e-mail 123 ";

    fn page() -> SourceDoc {
        SourceDoc {
            id: "a".into(),
            title: "A title of StateMachine".into(),
            path: "some path".into(),
            sections: vec![
                Section { heading: "Intro".into(), anchor: Some("intro".into()), text: TEXT.repeat(2), symbol: None },
                Section { heading: "Heading of StateMachine".into(), anchor: Some("h".into()), text: TEXT.repeat(37), symbol: None },
                Section { heading: String::new(), anchor: None, text: TEXT.repeat(3), symbol: None },
                Section { heading: "Short".into(), anchor: None, text: "a few words".into(), symbol: None },
                // A long run without a token (an ASCII rule), between words.
                Section {
                    heading: "Rule".into(),
                    anchor: None,
                    text: format!("{}{}{}", "rule above ".repeat(90), "-- ".repeat(900), "rule below ".repeat(90)),
                    symbol: None,
                },
                Section { heading: "Empty".into(), anchor: None, text: String::new(), symbol: None },
                Section { heading: "Last".into(), anchor: None, text: TEXT.repeat(11), symbol: None },
            ],
            ..Default::default()
        }
    }

    /// (field, section, byte offset in the field's text, position) of every token, as indexed.
    fn tokens(doc: &SourceDoc) -> (Vec<(usize, Option<usize>, usize, u32)>, Vec<u32>, u32) {
        let mut out = Vec::new();
        let mut section = None::<usize>;
        let (starts, end) = visit_doc_fields(doc, sift_text::analyzer::Analyzer::english(), usize::MAX, |field, _, toks, _| {
            if field == fields::FIELD_HEADINGS || (field == fields::FIELD_BODY && section.is_none()) {
                section = Some(section.map_or(0, |s| s + 1));
            }
            out.extend(toks.iter().map(|t| (field, section.filter(|_| field >= fields::FIELD_HEADINGS), t.start, t.pos)));
        });
        // (Sections without a heading: the body alone moves the count on.)
        let mut fixed = Vec::with_capacity(out.len());
        for &(f, _, at, pos) in &out {
            let s = (f >= fields::FIELD_HEADINGS).then(|| starts.partition_point(|&st| st <= pos) - 1);
            fixed.push((f, s, at, pos));
        }
        (fixed, starts, end)
    }

    #[test]
    fn every_token_lies_in_its_parts_stretch_of_the_grid_and_phrases_keep_their_positions() {
        let doc = page();
        let (toks, starts, end) = tokens(&doc);
        for window in [40, 64, 100, 333, 1000] {
            let plan = plan_page(&doc, &starts, end, window).unwrap_or_else(|| panic!("window {window}: a plan"));
            let n = plan.parts.len();
            assert!(n > 1 && plan.first_pos.len() == n, "window {window}");
            assert_eq!(plan.first_pos[0], window, "section 0 at the first window");
            for k in 0..n {
                let w = window_start(k, window).unwrap();
                assert!(plan.first_pos[k].abs_diff(w) < window, "window {window}: part {k} at {} (window {w})", plan.first_pos[k]);
                assert!(k == 0 || plan.first_pos[k] > plan.first_pos[k - 1]);
                assert!(!plan.parts[k].is_empty());
            }
            // Each section's pieces cover its text in order; a piece after the first continues.
            for (i, s) in doc.sections.iter().enumerate() {
                let ps: Vec<&StoredPiece> = plan.parts.iter().flatten().filter(|p| p.section == i).collect();
                assert!(!ps.is_empty());
                assert_eq!(ps[0].text.start, 0);
                assert!(ps.windows(2).all(|w| w[0].text.end == w[1].text.start && w[1].continues));
                assert!(!ps[0].continues && ps.last().unwrap().text.end == s.text.len());
                assert_eq!(ps[0].start, plan.remap(starts[i]), "window {window}: section {i} starts where the layout puts it");
            }
            // Every token, laid out on the grid, lies in the stretch of the part holding it.
            let part_of = |section: usize, at: usize, heading: bool| {
                plan.parts.iter().position(|part| {
                    part.iter().any(|p| p.section == section && (heading && !p.continues || !heading && p.text.contains(&at)))
                })
            };
            for &(field, section, at, pos) in &toks {
                let laid = plan.remap(pos);
                let Some(i) = section else {
                    assert!(laid < window, "title and path below the grid");
                    continue;
                };
                let k = part_of(i, at, field == fields::FIELD_HEADINGS).unwrap_or_else(|| panic!("token at {at} of section {i} in a part"));
                assert!(laid >= plan.first_pos[k], "window {window}: section {i} byte {at} at {laid}, part {k} from {}", plan.first_pos[k]);
                assert!(
                    k + 1 == n || laid < plan.first_pos[k + 1],
                    "window {window}: section {i} byte {at} at {laid}, part {} from {}",
                    k + 1,
                    plan.first_pos[k + 1]
                );
                // A piece's start is its first token.
                if let Some(p) =
                    plan.parts[k].iter().find(|p| p.section == i && p.continues && p.text.start <= at && field == fields::FIELD_BODY)
                {
                    let first =
                        toks.iter().filter(|t| t.1 == Some(i) && t.0 == fields::FIELD_BODY && t.2 >= p.text.start).map(|t| t.3).min();
                    assert_eq!(Some(p.start), first.map(|f| plan.remap(f)));
                }
            }
            // Within a section nothing moves apart: phrases across a cut still match.
            for i in 0..doc.sections.len() {
                let shifts: Vec<u32> = toks.iter().filter(|t| t.1 == Some(i)).map(|t| plan.remap(t.3) - t.3).collect();
                assert!(shifts.windows(2).all(|w| w[0] == w[1]), "window {window}: section {i} moved apart");
            }
        }
    }

    #[test]
    fn a_page_that_cannot_lie_on_the_grid_is_stored_whole() {
        let plan_of = |doc: &SourceDoc, window: u32| {
            let (_, starts, end) = tokens(doc);
            plan_page(doc, &starts, end, window)
        };
        let mut doc = page();
        assert!(plan_of(&doc, 100).is_some());
        // A heading longer than a window.
        doc.sections[3].heading = "word ".repeat(200);
        assert!(plan_of(&doc, 100).is_none());
        // A run without whitespace across more than a window.
        let mut doc = page();
        doc.sections[1].text = format!("{} {}", "a.".repeat(400), TEXT);
        assert!(plan_of(&doc, 100).is_none());
        // A title longer than a window.
        let mut doc = page();
        doc.title = "word ".repeat(200);
        assert!(plan_of(&doc, 100).is_none());
        // A page that fits in one part has none.
        assert!(plan_of(&page(), 1_000_000).is_none());
    }
}
