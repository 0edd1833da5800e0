//! Dates as whole days since 1970-01-01. The core has no clock: "now" always comes from the
//! caller, so results are reproducible and the wasm build needs no time API.

use crate::error::Quoted;
use crate::error::{ErrorCode, SiftError};

/// Days since the Unix epoch for a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day since the Unix epoch: the inverse of [`days_from_civil`].
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Parse an ISO 8601 date or date-time prefix: `2024-03-05`, `2024-03-05T10:00:00Z`,
/// `2024-03`, `2024`. Returns days since the epoch, or None when it is not a date.
pub fn parse_iso_days(s: &str) -> Option<i64> {
    let s = s.trim();
    let date = s.split(['T', ' ']).next()?;
    let mut it = date.split('-');
    let y_str = it.next()?;
    if y_str.len() != 4 || !y_str.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let y: i64 = y_str.parse().ok()?;
    let m: u32 = match it.next() {
        Some(v) if v.len() == 2 => v.parse().ok()?,
        Some(_) => return None,
        None => 1,
    };
    let d: u32 = match it.next() {
        Some(v) if v.len() == 2 => v.parse().ok()?,
        Some(_) => return None,
        None => 1,
    };
    if it.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// `since`: an ISO date, or a relative span back from `now_days`: `12h`, `7d`, `2w`, `3m`,
/// `1y`. Errors say what is accepted.
pub fn parse_since(s: &str, now_days: i64) -> Result<i64, SiftError> {
    if let Some(d) = parse_iso_days(s) {
        return Ok(d);
    }
    let t = s.trim();
    let bad = || {
        SiftError::new(
            ErrorCode::InvalidSince,
            msg!("since must be an ISO date (2024-05-01) or a span like 12h, 7d, 2w, 3m, 1y; got {}", Quoted(t)),
        )
    };
    if t.len() < 2 || t.len() > 8 {
        return Err(bad());
    }
    // The unit is the last character, which need not be one byte ("7語").
    let unit_at = t.char_indices().next_back().map_or(0, |(i, _)| i);
    let (num, unit) = t.split_at(unit_at);
    let n: i64 = num.parse().map_err(|_| bad())?;
    if n < 0 {
        return Err(bad());
    }
    let days = match unit {
        "h" => (n + 23) / 24,
        "d" => n,
        "w" => n * 7,
        "m" => n * 30,
        "y" => n * 365,
        _ => return Err(bad()),
    };
    Ok(now_days - days)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_from_days_inverts_days_from_civil() {
        for days in (-800_000..800_000).step_by(97) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
    }

    #[test]
    fn epoch_and_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(parse_iso_days("2000-03-01"), Some(11_017));
        assert_eq!(parse_iso_days("2024-02-29T12:00:00Z"), Some(19_782));
        assert_eq!(parse_iso_days("2024"), Some(days_from_civil(2024, 1, 1)));
    }

    #[test]
    fn rejects_non_dates() {
        for s in ["2023-02-29", "2024-13-01", "24-01-01", "yesterday", "", "2024-1-1"] {
            assert_eq!(parse_iso_days(s), None, "{s}");
        }
    }

    #[test]
    fn relative_since() {
        let now = 20_000;
        assert_eq!(parse_since("7d", now).unwrap(), 19_993);
        assert_eq!(parse_since("2w", now).unwrap(), 19_986);
        assert_eq!(parse_since("1y", now).unwrap(), 19_635);
        assert_eq!(parse_since("2024-01-01", now).unwrap(), days_from_civil(2024, 1, 1));
        // Found by the request_json fuzz target: a multi-byte last character used to panic.
        for bad in ["7x", "-3d", "d", "99999999999d", "soon", "ince語", "7語", "語d", "é", "1é"] {
            assert_eq!(parse_since(bad, now).unwrap_err().code, "invalid_since", "{bad}");
        }
    }
}
