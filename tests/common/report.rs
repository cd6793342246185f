//! The counts a test reports (outcomes of a damage suite, events acknowledged and lost in a
//! failover): printed, and also kept in `$REFEREE_TEST_REPORT/NAME.txt` when that variable
//! names a folder. cargo test hides what a passing test prints; `.ci/run` shows these files
//! after its one test run instead of running the tests again to see their output.

use std::io::Write;

/// The variable naming the folder reports are kept in.
pub const REPORT_DIR: &str = "REFEREE_TEST_REPORT";

/// Prints `line` and appends it to report `name` (one report per test: tests run in
/// parallel, and one writer per file keeps its lines in order).
pub fn say(name: &str, line: &str) {
    println!("{line}");
    let Some(dir) = std::env::var_os(REPORT_DIR).filter(|d| !d.is_empty()) else {
        return;
    };
    let path = std::path::Path::new(&dir).join(format!("{name}.txt"));
    std::fs::create_dir_all(&dir)
        .and_then(|()| {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)?;
            writeln!(file, "{line}")
        })
        .unwrap_or_else(|e| panic!("write the test report {}: {e}", path.display()));
}
