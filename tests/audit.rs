//! Federation audit through the command line: import a log, export its signed bundle, verify
//! it — and see each kind of tampering reported.

use std::path::Path;

use ed25519_dalek::Signer;
use referee::audit;

use crate::common::referee;
use crate::common::repo_path;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Imports a fixture into `data` and exports its bundle.
fn bundle_of(fixture: &str, data: &Path) -> String {
    let path = repo_path(&format!("replay-fixtures/{fixture}"));
    let d = data.to_str().expect("utf-8");
    let out = referee(&["import", path.to_str().expect("utf-8"), "--data", d]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let game = text(&out.stdout)
        .lines()
        .last()
        .expect("id printed last")
        .to_string();
    let out = referee(&["audit", "export", &game, "--data", d]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// Re-signs an edited bundle with the store's key, as a dishonest or broken server could:
/// the signature then holds, so only the chain and the replay can catch the edit.
fn resign(bundle: &str, data: &Path) -> String {
    let key = audit::load_or_create_key(data).expect("key");
    let mut body: String = bundle
        .lines()
        .filter(|l| !l.contains("\"type\":\"signature\""))
        .map(|l| format!("{l}\n"))
        .collect();
    let sig = key.sign(body.as_bytes());
    body.push_str(&format!(
        "{{\"type\":\"signature\",\"alg\":\"ed25519\",\"key\":\"{}\",\"signature\":\"{}\"}}\n",
        audit::public_key_hex(&key),
        hex::encode(sig.to_bytes())
    ));
    body
}

fn report(bundle: &str, key: Option<&str>) -> audit::Report {
    audit::verify(bundle, key).expect("readable bundle")
}

#[test]
fn an_exported_bundle_verifies_with_the_servers_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = bundle_of("xiangqi/blocked-horse-leg.jsonl", dir.path());
    let file = dir.path().join("bundle.jsonl");
    std::fs::write(&file, &bundle).expect("write");
    let key = text(
        &referee(&[
            "audit",
            "key",
            "--data",
            dir.path().to_str().expect("utf-8"),
        ])
        .stdout,
    )
    .trim()
    .to_string();
    let out = referee(&[
        "audit",
        "verify",
        file.to_str().expect("utf-8"),
        "--key",
        &key,
    ]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("the bundle holds"));
    let other = "00".repeat(32);
    let out = referee(&[
        "audit",
        "verify",
        file.to_str().expect("utf-8"),
        "--key",
        &other,
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bundle signed by another key must not pass"
    );
}

#[test]
fn any_edit_after_signing_breaks_the_signature() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = bundle_of("xiangqi/blocked-horse-leg.jsonl", dir.path());
    let edited = bundle.replacen("\"to\":\"d1\"", "\"to\":\"c2\"", 1);
    assert_ne!(edited, bundle);
    let r = report(&edited, None);
    assert!(
        r.problems
            .iter()
            .any(|p| p.contains("signature does not match")),
        "{:?}",
        r.problems
    );
    let cut: String = bundle.lines().take(3).map(|l| format!("{l}\n")).collect();
    assert!(!report(&cut, None).ok(), "a bundle cut short must not pass");
}

#[test]
fn a_re_signed_edit_is_caught_by_the_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = bundle_of("xiangqi/blocked-horse-leg.jsonl", dir.path());
    let edited = resign(
        &bundle.replacen("\"from\":\"h9\"", "\"from\":\"b9\"", 1),
        dir.path(),
    );
    let r = report(&edited, None);
    assert!(
        r.problems.iter().any(|p| p.contains("was altered")),
        "{:?}",
        r.problems
    );
    let without_event: String = bundle
        .lines()
        .filter(|l| !l.contains("\"seq\":3,"))
        .map(|l| format!("{l}\n"))
        .collect();
    let r = report(&resign(&without_event, dir.path()), None);
    assert!(
        r.problems
            .iter()
            .any(|p| p.contains("missing or reordered")),
        "{:?}",
        r.problems
    );
}

#[test]
fn a_recorded_ruling_this_build_does_not_derive_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = bundle_of("xiangqi/blocked-horse-leg.jsonl", dir.path());
    let edited = resign(
        &bundle.replacen("\"result\":\"0-1\"", "\"result\":\"1-0\"", 2),
        dir.path(),
    );
    let r = report(&edited, None);
    assert!(
        r.problems
            .iter()
            .any(|p| p.contains("but this build derives")),
        "{:?}",
        r.problems
    );
    assert!(
        r.problems.iter().any(|p| p.contains("records result 1-0")),
        "{:?}",
        r.problems
    );
    assert!(
        report(&resign(&bundle, dir.path()), None).ok(),
        "re-signing alone changes nothing"
    );
}

#[test]
fn the_signature_line_holds_exactly_its_fields() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = bundle_of("xiangqi/blocked-horse-leg.jsonl", dir.path());
    assert!(report(&bundle, None).ok());
    // The signature covers the lines before its own, so each of these still verifies as a
    // signature: only the line's fields are wrong.
    let cases = [
        (
            bundle.replacen("\"alg\":\"ed25519\"", "\"alg\":\"none\"", 1),
            "\"alg\" must be \"ed25519\", the one algorithm bundles are signed with, not \"none\"",
        ),
        (
            bundle.replacen("\"alg\":\"ed25519\",", "", 1),
            "no \"alg\" field",
        ),
        (
            bundle.replacen(
                "\"type\":\"signature\",",
                "\"type\":\"signature\",\"note\":\"x\",",
                1,
            ),
            "unknown field \"note\" in the signature line",
        ),
    ];
    let last_line = bundle.lines().count();
    for (edited, expected) in cases {
        assert_ne!(edited, bundle);
        let error = audit::verify(&edited, None).expect_err(expected);
        assert_eq!(
            error.to_string(),
            format!(
                "line {last_line}: {expected}{}",
                if expected.starts_with("unknown") {
                    "; it holds only type, alg, key, signature"
                } else {
                    ""
                }
            )
        );
        let file = dir.path().join("edited.jsonl");
        std::fs::write(&file, &edited).expect("write");
        let out = referee(&["audit", "verify", file.to_str().expect("utf-8")]);
        assert_eq!(out.status.code(), Some(2), "{expected}");
        assert!(
            text(&out.stderr).contains(expected),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_malformed_key_is_refused_not_taken_as_a_mismatch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bundle = bundle_of("xiangqi/blocked-horse-leg.jsonl", dir.path());
    let file = dir.path().join("bundle.jsonl");
    std::fs::write(&file, &bundle).expect("write");
    for key in ["zz", "00", &"g".repeat(64)] {
        let out = referee(&[
            "audit",
            "verify",
            file.to_str().expect("utf-8"),
            "--key",
            key,
        ]);
        assert_eq!(out.status.code(), Some(2), "--key {key}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with("referee: --key \"") && stderr.contains("must be 64 hex digits"),
            "{stderr}"
        );
        assert!(
            out.stdout.is_empty(),
            "nothing verified with a malformed key"
        );
        assert!(matches!(
            audit::verify(&bundle, Some(key)),
            Err(audit::Error::PinnedKey { .. })
        ));
    }
}
