//! No tracked file names a folder of the machine the project was developed on (`/work`, a
//! home folder, root's): data, venvs and scripts are named relative to the repository
//! (`../shared/data/...` for the project's shared data set, beside it), so every reference
//! holds on any checkout.

use std::path::Path;
use std::process::Command;

use crate::common::repo_path;

/// The folders that mark a development machine's absolute path, built from their names so
/// that this file does not contain them.
fn machine_folders() -> [String; 3] {
    ["work", "home", "root"].map(|folder| format!("/{folder}/"))
}

/// The files git tracks, relative to the repository.
fn tracked_files(repo: &Path) -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(repo)
        .output()
        .expect("run git ls-files");
    assert!(
        out.status.success(),
        "git ls-files: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect()
}

/// `file:line: text` for each line of `text` that names one of `folders`.
fn lines_naming(file: &str, text: &str, folders: &[String]) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| folders.iter().any(|f| line.contains(f.as_str())))
        .map(|(i, line)| format!("{file}:{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn no_tracked_file_names_a_folder_of_the_development_machine() {
    let repo = repo_path("");
    let folders = machine_folders();
    let mut found = Vec::new();
    for file in tracked_files(&repo) {
        let bytes = match std::fs::read(repo.join(&file)) {
            Ok(bytes) => bytes,
            // Deleted in the work tree, not yet in git's index: nothing to read.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => panic!("{file}: {e}"),
        };
        found.extend(lines_naming(
            &file,
            &String::from_utf8_lossy(&bytes),
            &folders,
        ));
    }
    assert!(
        found.is_empty(),
        "name these relative to the repository (../shared/... for the shared data):\n{}",
        found.join("\n")
    );
}

#[test]
fn a_line_naming_a_machine_folder_is_found() {
    let folders = machine_folders();
    let text = format!("fine\nsee {}data/x.json\n", folders[0]);
    assert_eq!(
        lines_naming("f.md", &text, &folders),
        [format!("f.md:2: see {}data/x.json", folders[0])]
    );
}
