//! `referee audit export|verify|key`: signed, self-contained bundles of a game's log.

use std::path::Path;
use std::process::ExitCode;

use crate::audit;
use crate::log::SledLog;

pub fn export(game: &str, data: &Path, out: Option<&Path>) -> ExitCode {
    let result = (|| {
        let key = audit::load_or_create_key(data).map_err(|e| e.to_string())?;
        let log = SledLog::open(data)
            .map_err(|e| format!("cannot open the log in {}: {e}", data.display()))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let bundle = audit::export(&log, game, &key, now).map_err(|e| e.to_string())?;
        match out {
            Some(path) => std::fs::write(path, bundle)
                .map_err(|e| format!("cannot write {}: {e}", path.display())),
            None => {
                print!("{bundle}");
                Ok(())
            }
        }
    })();
    finish(result)
}

pub fn verify(file: &Path, key: Option<&str>) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return finish(Err(format!("cannot read {}: {e}", file.display()))),
    };
    match audit::verify(&text, key) {
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            ExitCode::from(2)
        }
        Ok(report) => {
            for held in &report.held {
                println!("ok      {held}");
            }
            for problem in &report.problems {
                println!("PROBLEM {problem}");
            }
            if report.ok() {
                println!("the bundle holds");
                ExitCode::SUCCESS
            } else {
                println!(
                    "the bundle does NOT hold: {} problem(s)",
                    report.problems.len()
                );
                ExitCode::FAILURE
            }
        }
    }
}

pub fn key(data: &Path) -> ExitCode {
    finish(
        audit::load_or_create_key(data)
            .map(|k| println!("{}", audit::public_key_hex(&k)))
            .map_err(|e| e.to_string()),
    )
}

fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("referee: {e}");
            ExitCode::FAILURE
        }
    }
}
