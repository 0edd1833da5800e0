//! Decimal text → the nearest f64 (round half to even), for the reader's numbers.
//!
//! Why not `str::parse::<f64>`: std's Eisel–Lemire parser carries a 10.4 kB table of powers
//! of five, about 10 kB of the gzipped browser runtime, to read the handful of fractional
//! numbers a request or a manifest holds. Here, two paths give the same correctly rounded
//! result std gives (checked against it in the tests below and in `tests/json_codec.rs`):
//!
//! - the fast path (Clinger): up to 15 significant digits and a power of ten up to 10²² are
//!   both exact f64s, so one multiplication or division rounds once, correctly. Scores,
//!   weights and the manifest's f32s (at most 9 digits) all take it;
//! - otherwise, exact big-integer arithmetic: the value as `digits × 10^e`, divided out to
//!   64+ significant bits plus a sticky bit for whatever remains, rounded once. Slow (a few
//!   µs) and rare.
//!
//! Digits past the 800th only decide rounding by whether any is nonzero (768 digits are
//! enough to tell any decimal from a halfway point between two f64s), so a 100 kB number is
//! read in linear time.
//!
//! And the other way, [`shortest`]: the fewest significant digits that read back as the
//! same f32 or f64, the nearest such digits when two would (what Ryū, serde_json and Rust's
//! `{}` print), found by trying 1, 2, 3… digits and reading each candidate back with the
//! parser above. std's formatting (Grisu with a Dragon4 fallback and their tables) was
//! about 10 kB of the browser runtime, for scores and timings. The candidates come from f64
//! arithmetic, which is exact enough for the digits a score has; when it is not (extreme
//! magnitudes, 16–17 digit f64s), from the exact big-integer path.
//!
//! Without the feature `exact-numbers` (the wasm engines) the big-integer paths are not
//! compiled in: the host lends the two exact operations its platform already has
//! ([`lend_host`]) — JavaScript's `Number()` reads a number's text correctly rounded, and
//! `BigInt` divides exactly — so everything written stays the same, digit for digit
//! (`tests/wasm/numbers.test.mjs` checks the wasm engines against this file's own paths),
//! for 1.3 kB less of the packed keyword engine.

/// Significant digits kept exactly; the rest count only as "some nonzero digit follows".
#[cfg(feature = "exact-numbers")]
const MAX_DIGITS: usize = 800;

/// Exact powers of ten as f64 (10²² is the last one that is).
const POW10: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// The f64 nearest a JSON number's text (`-? int frac? exp?`, already validated by the
/// reader); `None` when it is too large for an f64 (it would read as infinity).
#[cfg(not(feature = "exact-numbers"))]
pub fn parse_f64(text: &[u8]) -> Option<f64> {
    host::read(text)
}

/// The f64 nearest a JSON number's text (`-? int frac? exp?`, already validated by the
/// reader); `None` when it is too large for an f64 (it would read as infinity).
#[cfg(feature = "exact-numbers")]
pub fn parse_f64(text: &[u8]) -> Option<f64> {
    let (neg, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let (mantissa, exp_text) = match rest.iter().position(|&b| b == b'e' || b == b'E') {
        Some(k) => (&rest[..k], Some(&rest[k + 1..])),
        None => (rest, None),
    };
    // The exponent, saturated: anything past ±10⁹ is far outside f64's range either way.
    let mut exp: i64 = 0;
    if let Some(t) = exp_text {
        let (eneg, digits) = match t.split_first() {
            Some((b'-', d)) => (true, d),
            Some((b'+', d)) => (false, d),
            _ => (false, t),
        };
        for &d in digits {
            exp = (exp * 10 + i64::from(d - b'0')).min(1_000_000_000);
        }
        if eneg {
            exp = -exp;
        }
    }
    // Significant digits (leading zeros skipped), and the exponent of the last one kept.
    let mut digits: Vec<u8> = Vec::new();
    let mut after_point = false;
    let mut dropped_nonzero = false;
    for &b in mantissa {
        if b == b'.' {
            after_point = true;
            continue;
        }
        let d = b - b'0';
        if digits.is_empty() && d == 0 {
            if after_point {
                exp -= 1;
            }
            continue;
        }
        if digits.len() < MAX_DIGITS {
            digits.push(d);
            if after_point {
                exp -= 1;
            }
        } else {
            dropped_nonzero |= d != 0;
            if !after_point {
                exp += 1;
            }
        }
    }
    if dropped_nonzero {
        // A nonzero tail: one more digit 1 stands for it (strictly between the kept
        // digits and the next value up, as the tail is).
        digits.push(1);
        exp -= 1;
    }
    while digits.last() == Some(&0) {
        digits.pop();
        exp += 1;
    }
    let magnitude = if digits.is_empty() { 0.0 } else { magnitude(&digits, exp)? };
    Some(if neg { -magnitude } else { magnitude })
}

/// A float's width: what reading back must reproduce.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Width {
    F32,
    F64,
}

impl Width {
    fn max_digits(self) -> u32 {
        match self {
            Width::F32 => 9,
            Width::F64 => 17,
        }
    }

    /// Whether `digits × 10^exp` reads back as `v` at this width.
    fn reads_back(self, digits: u64, exp: i64, v: f64) -> bool {
        // Clinger's fast path without writing the digits out, else the full reader.
        #[cfg(feature = "exact-numbers")]
        let read = clinger(digits, exp).or_else(|| magnitude(&digits.to_string().bytes().map(|b| b - b'0').collect::<Vec<_>>(), exp));
        #[cfg(not(feature = "exact-numbers"))]
        let read = clinger(digits, exp).or_else(|| {
            let mut text = crate::text::uint(digits);
            text.push('e');
            crate::text::push_int(&mut text, exp);
            host::read(text.as_bytes())
        });
        match read {
            Some(x) => match self {
                Width::F32 => x as f32 == v as f32,
                Width::F64 => x == v,
            },
            None => false,
        }
    }
}

/// The shortest digits that read back as `v` (finite, positive; an f32 widened when `width`
/// is F32): `(digits, exp)` meaning `digits × 10^exp`, `digits` without trailing zeros.
pub fn shortest(v: f64, width: Width) -> (u64, i64) {
    // Decimal exponent of the leading digit: a guess from the binary exponent (log10 2 ≈
    // 0.30103), corrected a step at a time.
    let exp2 = (v.to_bits() >> 52) as i64 - 1023;
    let mut lead = exp2 * 30_103 / 100_000;
    while pow10(lead) > v {
        lead -= 1;
    }
    while pow10(lead + 1) <= v {
        lead += 1;
    }
    // Past 10^±22 the estimate may be a step off: ⌊v·10^-lead⌋ must be one digit.
    if lead.abs() > 20 {
        loop {
            match exact_candidates(v, -lead).0 {
                0 => lead -= 1,
                10.. => lead += 1,
                _ => break,
            }
        }
    }
    for p in 1..=i64::from(width.max_digits()) {
        let k = p - 1 - lead; // v·10^k has p digits before the point
        if let Some(found) = nearest_reading_back(v, k, width) {
            return strip(found.0, found.1);
        }
    }
    // Unreachable in practice: 9 (17) correctly rounded digits always read back.
    strip(exact_candidates(v, i64::from(width.max_digits()) - 1 - lead).0, -(i64::from(width.max_digits()) - 1 - lead))
}

/// 10^e as an f64: exact for 0 ≤ e ≤ 22, correctly rounded for -22 ≤ e < 0, an estimate
/// beyond (where [`shortest`] checks the leading digit exactly).
fn pow10(e: i64) -> f64 {
    match e {
        0..=22 => POW10[e as usize],
        -22..=-1 => 1.0 / POW10[(-e) as usize],
        _ => {
            let step = if e < 0 { 0.1 } else { 10.0 };
            (0..e.unsigned_abs().min(400)).fold(1.0f64, |x, _| x * step)
        }
    }
}

/// The integers next to `v·10^k` (nearest first) that read back as `v`, as `(digits, exp)`.
fn nearest_reading_back(v: f64, k: i64, width: Width) -> Option<(u64, i64)> {
    let (below, above_nearer) = fast_candidates(v, k).unwrap_or_else(|| exact_candidates(v, k));
    let above = below + 1;
    let order = if above_nearer { [above, below] } else { [below, above] };
    order.into_iter().filter(|&d| d > 0).find(|&d| width.reads_back(d, -k, v)).map(|d| (d, -k))
}

/// `⌊v·10^k⌋` and whether the next integer up is nearer, from f64 arithmetic when that is
/// sure to be right: one rounding of a product below 2^40 is off by less than 2^-13, so the
/// floor is at worst one step low (the two candidates still hold the nearest) and which is
/// nearer is decided unless the fraction is within 10^-3 of a half.
fn fast_candidates(v: f64, k: i64) -> Option<(u64, bool)> {
    if !(-22..=22).contains(&k) {
        return None;
    }
    let scaled = if k >= 0 { v * POW10[k as usize] } else { v / POW10[(-k) as usize] };
    if scaled >= (1u64 << 40) as f64 {
        return None;
    }
    let below = scaled.floor();
    let frac = scaled - below;
    if (frac - 0.5).abs() < 1e-3 {
        return None;
    }
    Some((below as u64, frac > 0.5))
}

/// `v` as `mant × 2^exp2` (`mant` below 2^53).
fn binary(v: f64) -> (u64, i64) {
    let bits = v.to_bits();
    match (bits >> 52) as i64 {
        0 => (bits & ((1 << 52) - 1), -1074),
        e => ((bits & ((1 << 52) - 1)) | (1 << 52), e - 1075),
    }
}

/// `⌊v·10^k⌋` exactly, and whether the next integer up is nearer (or as near). (The
/// quotient is below 2^57 wherever `shortest` asks: at most 17 digits, or one.)
#[cfg(not(feature = "exact-numbers"))]
fn exact_candidates(v: f64, k: i64) -> (u64, bool) {
    let floor_and_up = host::scaled_floor(v, k);
    (floor_and_up >> 1, floor_and_up & 1 == 1)
}

/// `⌊v·10^k⌋` exactly, and whether the next integer up is nearer (or as near).
#[cfg(feature = "exact-numbers")]
fn exact_candidates(v: f64, k: i64) -> (u64, bool) {
    let (mant, exp2) = binary(v);
    let mut num = Big(vec![mant as u32, (mant >> 32) as u32]).trimmed();
    let mut den = Big(vec![1]);
    if exp2 >= 0 {
        num = num.shl(exp2 as usize);
    } else {
        den = den.shl((-exp2) as usize);
    }
    if k >= 0 {
        num = num.mul(&Big::pow10(k as u32));
    } else {
        den = den.mul(&Big::pow10((-k) as u32));
    }
    let (q, rest) = num.div_small_quotient(&den, 66);
    // Up when 2·rest ≥ den: on an exact tie std's formatting prints the digit rounded up.
    let twice = rest.shl(1);
    (q as u64, !twice.less_than(&den))
}

fn strip(mut digits: u64, mut exp: i64) -> (u64, i64) {
    while digits > 0 && digits.is_multiple_of(10) {
        digits /= 10;
        exp += 1;
    }
    (digits, exp)
}

/// `m × 10^exp` by one correctly rounded f64 operation, when both are exact f64s (Clinger's
/// fast path: `m` below 2^53, `|exp|` up to 22).
fn clinger(m: u64, exp: i64) -> Option<f64> {
    if m >= 1 << 53 || !(-22..=22).contains(&exp) {
        return None;
    }
    let (m, p) = (m as f64, POW10[exp.unsigned_abs() as usize]);
    Some(if exp < 0 { m / p } else { m * p })
}

/// `digits × 10^exp`, rounded; `digits` nonempty, no leading or trailing zeros.
#[cfg(feature = "exact-numbers")]
fn magnitude(digits: &[u8], exp: i64) -> Option<f64> {
    let n = digits.len() as i64;
    // The value is in [10^(n+exp-1), 10^(n+exp)).
    if n + exp > 310 {
        return None;
    }
    if n + exp < -324 {
        return Some(0.0); // below half the smallest subnormal
    }
    if n <= 15 {
        if let Some(x) = clinger(digits.iter().fold(0u64, |m, &d| m * 10 + u64::from(d)), exp) {
            return Some(x);
        }
    }
    let m = Big::from_digits(digits);
    let x = if exp >= 0 {
        let v = m.mul(&Big::pow10(exp as u32));
        let bits = v.bits();
        let drop = bits.saturating_sub(64);
        let (top, sticky) = v.top(drop);
        compose(u128::from(top), sticky, drop as i64)
    } else {
        let d = Big::pow10((-exp) as u32);
        // q = ⌊m·2^s / d⌋ with 64 or 65 bits: 2^63 ≤ q < 2^65.
        let s = 64 + d.bits() as i64 - m.bits() as i64;
        let (num, den) = if s >= 0 { (m.shl(s as usize), d) } else { (m, d.shl((-s) as usize)) };
        let (q, rest) = num.div_small_quotient(&den, 66);
        compose(q, !rest.is_zero(), -s)
    };
    x.is_finite().then_some(x)
}

/// `mant × 2^exp2` rounded to the nearest f64, half to even; `sticky`: something nonzero
/// below `mant`'s last bit (only ever with `mant` ≥ 2⁶³, so it sits below the rounding bit).
#[cfg(feature = "exact-numbers")]
fn compose(mant: u128, sticky: bool, exp2: i64) -> f64 {
    if mant == 0 {
        return 0.0;
    }
    let bits = 128 - i64::from(mant.leading_zeros());
    let top = bits - 1 + exp2; // the value is in [2^top, 2^(top+1))
    if top > 1023 {
        return f64::INFINITY;
    }
    // The weight of the result's last bit: 53 significant bits, or the subnormal floor.
    let mut lsb = (top - 52).max(-1074);
    let shift = lsb - exp2;
    let mut kept = if shift <= 0 {
        (mant << (-shift).min(127)) as u64
    } else if shift >= 128 {
        0
    } else {
        let kept = (mant >> shift) as u64;
        let rest = mant & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        kept + u64::from(up)
    };
    if kept == 1 << 53 {
        kept >>= 1;
        lsb += 1;
    }
    if kept >= 1 << 52 {
        let biased = lsb + 52 + 1023;
        if biased >= 2047 {
            return f64::INFINITY;
        }
        f64::from_bits(((biased as u64) << 52) | (kept - (1 << 52)))
    } else {
        f64::from_bits(kept) // subnormal (lsb is 2^-1074)
    }
}

/// An unsigned big integer, little-endian u32 limbs, no high zero limbs.
#[cfg(feature = "exact-numbers")]
#[derive(Clone, Debug, PartialEq, Default)]
struct Big(Vec<u32>);

#[cfg(feature = "exact-numbers")]
impl Big {
    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(Vec::new());
        // Nine digits at a time.
        for chunk in digits.chunks(9) {
            let (mul, add) = chunk.iter().fold((1u32, 0u32), |(m, a), &d| (m * 10, a * 10 + u32::from(d)));
            b.mul_add_small(mul, add);
        }
        b
    }

    fn pow10(k: u32) -> Big {
        let mut b = Big(vec![1]);
        let mut left = k;
        while left > 0 {
            let step = left.min(9);
            b.mul_add_small(10u32.pow(step), 0);
            left -= step;
        }
        b
    }

    fn mul_add_small(&mut self, mul: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(mul) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul(&self, other: &Big) -> Big {
        let mut out = vec![0u32; self.0.len() + other.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &b) in other.0.iter().enumerate() {
                let v = u64::from(out[i + j]) + u64::from(a) * u64::from(b) + carry;
                out[i + j] = v as u32;
                carry = v >> 32;
            }
            out[i + other.0.len()] = carry as u32;
        }
        Big(out).trimmed()
    }

    fn trimmed(mut self) -> Big {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn bits(&self) -> usize {
        self.0.last().map_or(0, |&hi| 32 * self.0.len() - hi.leading_zeros() as usize)
    }

    fn bit(&self, i: usize) -> bool {
        self.0.get(i / 32).is_some_and(|&limb| limb >> (i % 32) & 1 == 1)
    }

    fn shl(&self, n: usize) -> Big {
        let (limbs, bits) = (n / 32, n % 32);
        let mut out = vec![0u32; limbs];
        let mut carry = 0u32;
        for &limb in &self.0 {
            out.push(if bits == 0 { limb } else { (limb << bits) | carry });
            carry = if bits == 0 { 0 } else { limb >> (32 - bits) };
        }
        out.push(carry);
        Big(out).trimmed()
    }

    /// The bits above the lowest `drop` (at most 64 of them), and whether any dropped bit is set.
    fn top(&self, drop: usize) -> (u64, bool) {
        let top = (0..64).filter(|&i| self.bit(drop + i)).fold(0u64, |t, i| t | 1 << i);
        let sticky = (0..drop).any(|i| self.bit(i));
        (top, sticky)
    }

    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let v = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            *limb = v.rem_euclid(1 << 32) as u32;
            borrow = i64::from(v < 0);
        }
        let trimmed = std::mem::take(self).trimmed();
        *self = trimmed;
    }

    fn less_than(&self, other: &Big) -> bool {
        if self.0.len() != other.0.len() {
            return self.0.len() < other.0.len();
        }
        self.0.iter().rev().cmp(other.0.iter().rev()) == std::cmp::Ordering::Less
    }

    /// `(⌊self / den⌋, self mod den)` for a quotient known to be below `2^bits`
    /// (restoring division, one quotient bit per step).
    fn div_small_quotient(mut self, den: &Big, bits: usize) -> (u128, Big) {
        let mut q = 0u128;
        for i in (0..bits).rev() {
            let step = den.shl(i);
            if !self.less_than(&step) {
                self.sub_assign(&step);
                q |= 1 << i;
            }
        }
        (q, self)
    }
}

/// The exact operations a host lends when the engine is built without them.
#[cfg(not(feature = "exact-numbers"))]
pub struct Host {
    /// The f64 nearest a JSON number's text, correctly rounded (JavaScript's `Number`);
    /// infinite past f64's range.
    pub read: fn(&str) -> f64,
    /// `⌊mant·2^exp2·10^k⌋·2`, plus 1 when the next integer up is as near or nearer, modulo
    /// 2^64 (`mant` below 2^53, so exact as an f64).
    pub scaled_floor: fn(f64, i32, i32) -> u64,
}

/// Lend the host's exact operations (sift-wasm does when its module starts); the first
/// lending stays.
#[cfg(not(feature = "exact-numbers"))]
pub fn lend_host(lent: Host) {
    let _ = host::LENT.set(lent);
}

#[cfg(not(feature = "exact-numbers"))]
mod host {
    pub(super) static LENT: std::sync::OnceLock<super::Host> = std::sync::OnceLock::new();

    /// `None` past f64's range, and (never in sift-wasm, which lends at its start) when no
    /// host lent a reader: a number refused, not a wrong one.
    pub(super) fn read(text: &[u8]) -> Option<f64> {
        let (Some(host), Ok(text)) = (LENT.get(), std::str::from_utf8(text)) else { return None };
        let x = (host.read)(text);
        x.is_finite().then_some(x)
    }

    /// Without a host (never in sift-wasm), one rounded f64 product: the digits of a
    /// score are the same, an extreme magnitude's last digit may not be.
    pub(super) fn scaled_floor(v: f64, k: i64) -> u64 {
        let Some(host) = LENT.get() else {
            let x = v * 10f64.powi(k as i32);
            return ((x as u64) << 1) | u64::from(x - x.floor() >= 0.5);
        };
        let (mant, exp2) = super::binary(v);
        (host.scaled_floor)(mant as f64, exp2 as i32, k as i32)
    }
}

#[cfg(all(test, feature = "exact-numbers"))]
mod tests {
    use super::*;

    fn check(text: &str) {
        let want: f64 = text.parse().unwrap();
        let got = parse_f64(text.as_bytes());
        if want.is_finite() {
            assert_eq!(got.map(f64::to_bits), Some(want.to_bits()), "{text}: {got:?}, std {want:e}");
        } else {
            assert_eq!(got, None, "{text}");
        }
    }

    #[test]
    fn reads_what_std_reads_at_the_edges() {
        for t in [
            // A subnormal serde_json's default reader takes an ulp off (found by
            // tests/json_codec.rs): this reader must agree with std, not with it.
            "1.167754988634e-309",
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "1.5",
            "0.1",
            "0.3",
            "123.456",
            "1e22",
            "1e23",
            "9007199254740993",
            "9007199254740992.5",
            "0.30000000000000004",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "5e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "1e308",
            "-5.3698850165729164e-39",
            "123456789012345678901234567890",
            "0.000000000000000000000000000001",
            "1e-7",
            "7.0e-10",
            "1e-22",
            "1e-23",
            "3.14159265358979323846264338327950288",
            "1e0",
            "1E+2",
            "1e-0",
            "100000000000000000000000000000000000000000000000000000000000000000000000000000001e-80",
            "1e1000000000000000000000000",
            "1e-1000000000000000000000000",
            "0.7965",
            "0.79650002717971802",
        ] {
            check(t);
        }
    }

    /// The exact decimal digits of 5^k (so `digits e-k` is exactly 2^-k).
    fn five_to_the(k: usize) -> String {
        let mut digits = vec![1u8]; // little-endian decimal
        for _ in 0..k {
            let mut carry = 0;
            for d in &mut digits {
                let v = *d * 5 + carry;
                *d = v % 10;
                carry = v / 10;
            }
            if carry > 0 {
                digits.push(carry);
            }
        }
        digits.iter().rev().map(|&d| char::from(b'0' + d)).collect()
    }

    #[test]
    fn halfway_cases_are_decided_by_digits_past_the_800th() {
        // 2^-1075, half the smallest subnormal, is 753 digits long: exactly, it rounds to
        // even (zero); anything above it, however far down, rounds up to 2^-1074.
        let half = five_to_the(1075);
        assert!(half.len() > 750);
        check(&format!("{half}e-1075"));
        let above = format!("{half}{}1e-{}", "0".repeat(2000), 1075 + 2001);
        assert!(above.len() > 2 * MAX_DIGITS);
        check(&above);
        assert_eq!(parse_f64(above.as_bytes()), Some(5e-324));
        // 2^-1074 · 3 / 2: halfway between one and two subnormal units; to even is two.
        let three_halves = format!("{}e-1075", {
            let h = five_to_the(1075);
            let mut n: Vec<u8> = h.bytes().map(|b| b - b'0').collect();
            let mut carry = 0;
            for d in n.iter_mut().rev() {
                let v = *d * 3 + carry;
                *d = v % 10;
                carry = v / 10;
            }
            let mut s = if carry > 0 { carry.to_string() } else { String::new() };
            s.extend(n.iter().map(|&d| char::from(b'0' + d)));
            s
        });
        check(&three_halves);
        check(&format!("{}e-10", "1".repeat(5000)));
        check(&format!("0.{}1", "0".repeat(5000)));
        check(&format!("{}.5", "9".repeat(400)));
    }

    /// A deterministic sweep (xorshift64) from `seed`, the seed itself left out.
    fn xorshift(seed: u64) -> impl Iterator<Item = u64> {
        std::iter::successors(Some(seed), |&s| {
            let s = s ^ (s << 13);
            let s = s ^ (s >> 7);
            Some(s ^ (s << 17))
        })
        .skip(1)
    }

    #[test]
    fn reads_every_f64_and_f32_it_writes_back_exactly() {
        // Bit patterns, both widths, both notations.
        for s in xorshift(0x9E3779B97F4A7C15).take(20_000) {
            let x = f64::from_bits(s);
            if x.is_finite() {
                check(&format!("{x:e}"));
                check(&format!("{x:?}"));
            }
            let y = f32::from_bits(s as u32);
            if y.is_finite() {
                check(&format!("{y:e}"));
                check(&format!("{}", f64::from(y)));
            }
        }
    }

    #[test]
    fn digit_strings_read_as_std_reads_them() {
        for s in xorshift(0x2545F4914F6CDD1D).take(5_000) {
            let len = 1 + (s % 40) as usize;
            let digits: String = (0..len).map(|i| char::from(b'0' + ((s >> (i % 60)) % 10) as u8)).collect();
            let exp = (s >> 40) as i64 % 700 - 350;
            check(&format!("{digits}e{exp}"));
            check(&format!("0.{digits}"));
        }
    }

    /// What the writer printed with std's formatting (the reference, natively).
    fn std_text(x: f64, width: Width) -> String {
        let s = match width {
            Width::F32 if !(1e-5..1e16).contains(&x.abs()) && x != 0.0 => format!("{:e}", x as f32),
            Width::F32 => format!("{}", x as f32),
            Width::F64 if !(1e-5..1e16).contains(&x.abs()) && x != 0.0 => format!("{x:e}"),
            Width::F64 => format!("{x}"),
        };
        if s.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
            s + ".0"
        } else {
            s
        }
    }

    fn ours(x: f64, width: Width) -> String {
        let n = match width {
            Width::F32 => crate::json::Num::F32(x as f32),
            Width::F64 => crate::json::Num::Float(x),
        };
        n.to_string()
    }

    #[test]
    fn writes_what_std_writes_for_every_kind_of_float() {
        for bits in xorshift(0x853C49E6748FEA9B).take(8_000) {
            let x = f64::from_bits(bits);
            if x.is_finite() {
                assert_eq!(ours(x, Width::F64), std_text(x, Width::F64), "f64 bits {bits:#x}");
            }
            let y = f32::from_bits(bits as u32);
            if y.is_finite() {
                assert_eq!(ours(f64::from(y), Width::F32), std_text(f64::from(y), Width::F32), "f32 bits {:#x}", bits as u32);
            }
        }
        // Scores and timings as they come: short decimals, powers of ten and two, edges.
        for x in [
            0.0,
            -0.0,
            1.0,
            0.1,
            0.7965,
            1.0 / 3.0,
            2.0 / 3.0,
            1e-5,
            9.99999e-6,
            1e16,
            9.999999999999998e15,
            123456.79,
            1e21,
            1e22,
            1e23,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            0.30000000000000004,
            100.0,
            1234.5,
            0.001,
            2f64.powi(-40),
            2f64.powi(60),
            16777216.0,
            16777217.0,
            8388608.5,
        ] {
            for x in [x, -x] {
                assert_eq!(ours(x, Width::F64), std_text(x, Width::F64), "f64 {x:e}");
                let y = x as f32;
                if y.is_finite() {
                    assert_eq!(ours(f64::from(y), Width::F32), std_text(f64::from(y), Width::F32), "f32 {y:e}");
                }
            }
        }
        for bits in [1u32, 2, 0x0080_0000, 0x7f7f_ffff, 0x3f80_0000, 0x0000_0001] {
            let y = f32::from_bits(bits);
            assert_eq!(ours(f64::from(y), Width::F32), std_text(f64::from(y), Width::F32), "f32 bits {bits:#x}");
        }
        for k in -30..=30 {
            let x = 10f64.powi(k);
            assert_eq!(ours(x, Width::F64), std_text(x, Width::F64), "1e{k}");
            let y = x as f32;
            if y.is_finite() && y != 0.0 {
                assert_eq!(ours(f64::from(y), Width::F32), std_text(f64::from(y), Width::F32), "f32 1e{k}");
            }
        }
    }
}
