//! Which documents an alternative matches, from postings and positions alone: a single term
//! matches where it occurs; a phrase where its words sit at consecutive positions (stop
//! words carry no positions and count as one-word gaps). Also the proximity bonus of two
//! neighbouring query words found side by side.

use super::plan::{Alt, AltKind, Clause, RTerm};

/// Documents matching an alternative, with the index of each term's posting for that doc.
/// A phrase of stop words only is matched by co-occurrence.
pub(crate) fn alt_matches(alt: &Alt) -> Vec<(u32, Vec<usize>)> {
    let first = &alt.terms[0].pl;
    if alt.terms.len() == 1 {
        return first.docs.iter().enumerate().map(|(k, &d)| (d, vec![k])).collect();
    }
    first.docs.iter().filter_map(|&doc| alt_match_at(alt, doc).map(|ks| (doc, ks))).collect()
}

/// Whether `doc` matches an alternative (terms present; adjacent for a phrase), with the
/// index of each term's posting for it. `"state of the art"` needs `state` and `art` three
/// apart.
pub(crate) fn alt_match_at(alt: &Alt, doc: u32) -> Option<Vec<usize>> {
    let ks: Vec<usize> = alt.terms.iter().map(|t| t.pl.docs.binary_search(&doc).ok()).collect::<Option<_>>()?;
    if !alt.phrase || alt.terms.len() == 1 {
        return Some(ks);
    }
    let stop = &alt.stop;
    let Some(a) = stop.iter().position(|s| !s) else { return Some(ks) };
    let starts = alt.terms[a].pl.positions_of(ks[a]);
    let ok = starts.iter().any(|&p| {
        alt.terms.iter().zip(&ks).enumerate().all(|(i, (t, &k))| {
            i == a || stop[i] || {
                let want = i64::from(p) + i as i64 - a as i64;
                want >= 0 && t.pl.positions_of(k).binary_search(&(want as u32)).is_ok()
            }
        })
    });
    ok.then_some(ks)
}

/// Neighbouring plain words of the query as typed (`string methods`): their exact terms, in
/// order.
pub(crate) fn proximity_pairs<'c>(clauses: &'c [Clause], positive: &[usize]) -> Vec<(&'c RTerm, &'c RTerm)> {
    let plain = |ci: usize| -> Option<&'c RTerm> {
        let a = clauses[ci].alts.first()?;
        (a.kind == AltKind::Exact && a.terms.len() == 1 && !a.stop[0]).then(|| &a.terms[0])
    };
    let typed: Vec<usize> = positive.iter().copied().filter(|&i| !clauses[i].expansion).collect();
    typed.windows(2).filter_map(|w| Some((plain(w[0])?, plain(w[1])?))).collect()
}

/// The most a pair can add: `weight` (`RankingParams::proximity`) times its mean idf.
pub(crate) fn proximity_max(a: &RTerm, b: &RTerm, weight: f32) -> f32 {
    weight * (a.idf + b.idf) / 2.0
}

/// The proximity bonus of one document, if `a` is directly followed by `b` somewhere in it:
/// it grows with the count c of such places, saturating like a term frequency (c/(c+1)).
pub(crate) fn proximity_at(a: &RTerm, b: &RTerm, doc: u32, weight: f32) -> Option<f32> {
    let ka = a.pl.docs.binary_search(&doc).ok()?;
    let kb = b.pl.docs.binary_search(&doc).ok()?;
    let (pa, pb) = (a.pl.positions_of(ka), b.pl.positions_of(kb));
    let (mut i, mut j, mut c) = (0, 0, 0u32);
    while i < pa.len() && j < pb.len() {
        match pb[j].cmp(&(pa[i] + 1)) {
            std::cmp::Ordering::Less => j += 1,
            std::cmp::Ordering::Greater => i += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (c > 0).then(|| proximity_max(a, b, weight) * c as f32 / (c as f32 + 1.0))
}
