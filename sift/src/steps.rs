//! Where a build's time and memory went: the start of each step, and the peak resident
//! memory, printed when the build ends.

use std::time::Instant;

/// When each step of a build started, and the peak memory by then, to say where the time
/// and the memory went.
#[derive(Clone, Default)]
pub struct Steps(std::sync::Arc<std::sync::Mutex<Vec<(String, Instant, Option<u64>)>>>);

impl Steps {
    pub fn start(&self, what: &str) {
        if let Ok(mut v) = self.0.lock() {
            v.push((what.to_string(), Instant::now(), peak_memory()));
        }
    }

    /// `step 1.2s (peak 310 MB), step 0.3s (peak 420 MB), …` up to now: each step's time
    /// and the peak resident memory when it ended.
    pub fn summary(&self) -> String {
        let v = self.0.lock().map(|v| v.clone()).unwrap_or_default();
        let end = [(String::new(), Instant::now(), peak_memory())];
        let ends = v.iter().skip(1).chain(&end);
        v.iter()
            .zip(ends)
            .map(|((what, t0, _), (_, t1, peak))| {
                let peak = peak.map_or(String::new(), |kb| format!(" (peak {:.0} MB)", kb as f64 / 1024.0));
                format!("{what} {:.1}s{peak}", (*t1 - *t0).as_secs_f64())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The process's peak resident memory, kB (Linux's `VmHWM`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Progress as plain lines, for a build whose stderr is not a terminal (a CI log), where a
/// bar draws nothing: a line when a step starts, then at most one every `every` with how far
/// it is, its rate and the time to go.
pub struct LogProgress {
    on: bool,
    every: std::time::Duration,
    state: std::sync::Mutex<(String, Instant, Instant)>,
}

impl LogProgress {
    /// Lines only when `quiet` is off and stderr is not a terminal.
    pub fn new(quiet: bool) -> LogProgress {
        use std::io::IsTerminal as _;
        LogProgress::with(!quiet && !std::io::stderr().is_terminal(), std::time::Duration::from_secs(30))
    }

    pub fn with(on: bool, every: std::time::Duration) -> LogProgress {
        let now = Instant::now();
        LogProgress { on, every, state: std::sync::Mutex::new((String::new(), now, now)) }
    }

    pub fn step(&self, what: &str) {
        if let (true, Ok(mut s)) = (self.on, self.state.lock()) {
            let now = Instant::now();
            *s = (what.to_string(), now, now);
            eprintln!("{what}");
        }
    }

    pub fn progress(&self, done: u64, total: u64) {
        if let Some(line) = self.line(done, total) {
            eprintln!("{line}");
        }
    }

    /// The line to print now, if one is due.
    fn line(&self, done: u64, total: u64) -> Option<String> {
        if !self.on {
            return None;
        }
        let mut s = self.state.lock().ok()?;
        let now = Instant::now();
        if now - s.2 < self.every || done == 0 {
            return None;
        }
        s.2 = now;
        let secs = (now - s.1).as_secs_f64();
        let rate = done as f64 / secs.max(1e-9);
        let left = total.saturating_sub(done) as f64 / rate.max(1e-9);
        Some(format!(
            "  {}: {done}/{total} ({:.0}%), {rate:.1}/s, about {} to go",
            s.0,
            100.0 * done as f64 / total.max(1) as f64,
            duration(left)
        ))
    }
}

/// `45s`, `12 min`, `2.5 h`.
fn duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0}s")
    } else if secs < 5400.0 {
        format!("{:.0} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_line_says_how_far_at_what_rate_and_how_long_to_go() {
        let log = LogProgress::with(true, std::time::Duration::ZERO);
        log.step("embedding");
        std::thread::sleep(std::time::Duration::from_millis(20));
        let line = log.line(50, 200).expect("a line is due");
        assert!(line.starts_with("  embedding: 50/200 (25%), "), "{line}");
        assert!(line.contains("/s, about ") && line.ends_with(" to go"), "{line}");
        assert_eq!(log.line(0, 200), None, "nothing done yet: no rate to tell");
        let quiet = LogProgress::with(false, std::time::Duration::ZERO);
        assert_eq!(quiet.line(50, 200), None, "off on a terminal or with --quiet");
        let slow = LogProgress::with(true, std::time::Duration::from_secs(3600));
        slow.step("writing");
        assert_eq!(slow.line(1, 2), None, "at most one line per interval");
    }

    #[test]
    fn durations_read_in_the_unit_that_fits() {
        assert_eq!((duration(45.0), duration(720.0), duration(9000.0)), ("45s".into(), "12 min".into(), "2.5 h".into()));
    }
}
