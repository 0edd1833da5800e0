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
