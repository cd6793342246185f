//! Checking an audit bundle: the signature, the hash chain record by record, and the rulings
//! and result re-derived with this build's rules against those recorded. Every difference is
//! reported — a changed rule implementation is visible, not silent.

use ed25519_dalek::{Signature, Verifier, VerifyingKey};
use serde_json::Value;

use crate::event::{event_from_json, header_from_json};
use crate::log::{HASH_LEN, Record, ZERO_HASH};
use crate::referee::Referee;

use super::Error;

/// What verification found: what held, and every problem. The bundle holds only if
/// `problems` is empty.
#[derive(Debug, Default)]
pub struct Report {
    pub held: Vec<String>,
    pub problems: Vec<String>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

struct Line {
    number: usize,
    value: Value,
}

/// Verifies a bundle; `pinned_key` (hex) is the public key the auditor expects.
pub fn verify(text: &str, pinned_key: Option<&str>) -> Result<Report, Error> {
    pinned_key.map(expected_key).transpose()?;
    let mut report = Report::default();
    let lines = parse_lines(text)?;
    let (signature, body) = lines.split_last().ok_or(Error::Malformed {
        line: 1,
        message: "the bundle is empty".into(),
    })?;
    check_signature(text, signature, pinned_key, &mut report)?;
    if body.first().is_some_and(|l| kind(l) == "tournament") {
        let lines: Vec<(usize, &Value)> = body.iter().map(|l| (l.number, &l.value)).collect();
        super::tournament::check_table(&lines, &mut report.problems, &mut report.held);
        return Ok(report);
    }
    let records = check_chain(body, &mut report)?;
    check_rulings(body, &records, &mut report)?;
    Ok(report)
}

/// The records of a game's bundle whose signature (and pinned key, if given) and chain hold,
/// or every problem found. Rulings are not compared: a bundle exported by another build is
/// still a faithful copy of the events, which is what a store is rebuilt from.
pub fn verified_records(text: &str, pinned_key: Option<&str>) -> Result<Vec<Record>, Vec<String>> {
    pinned_key
        .map(expected_key)
        .transpose()
        .map_err(|e| vec![e.to_string()])?;
    let mut report = Report::default();
    let lines = parse_lines(text).map_err(|e| vec![e.to_string()])?;
    let Some((signature, body)) = lines.split_last() else {
        return Err(vec!["the bundle is empty".into()]);
    };
    check_signature(text, signature, pinned_key, &mut report).map_err(|e| vec![e.to_string()])?;
    if body.first().is_some_and(|l| kind(l) == "tournament") {
        return Err(vec!["a tournament export holds no game records".into()]);
    }
    let records = check_chain(body, &mut report).map_err(|e| vec![e.to_string()])?;
    if !report.problems.is_empty() {
        return Err(report.problems);
    }
    Ok(records.into_iter().map(|(record, _)| record).collect())
}

fn parse_lines(text: &str) -> Result<Vec<Line>, Error> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let value = serde_json::from_str(l).map_err(|e| Error::Malformed {
                line: i + 1,
                message: format!("malformed JSON: {e}"),
            })?;
            Ok(Line {
                number: i + 1,
                value,
            })
        })
        .collect()
}

fn kind(line: &Line) -> &str {
    line.value.get("type").and_then(Value::as_str).unwrap_or("")
}

fn field<'a>(line: &'a Line, key: &str) -> Result<&'a Value, Error> {
    line.value.get(key).ok_or_else(|| Error::Malformed {
        line: line.number,
        message: format!("no \"{key}\" field"),
    })
}

fn text_field(line: &Line, key: &str) -> Result<String, Error> {
    field(line, key)?
        .as_str()
        .map(String::from)
        .ok_or_else(|| Error::Malformed {
            line: line.number,
            message: format!("\"{key}\" must be a string"),
        })
}

fn uint_field(line: &Line, key: &str) -> Result<u64, Error> {
    field(line, key)?.as_u64().ok_or_else(|| Error::Malformed {
        line: line.number,
        message: format!("\"{key}\" must be a whole number"),
    })
}

fn hash_field(line: &Line, key: &str) -> Result<[u8; HASH_LEN], Error> {
    let bad = || Error::Malformed {
        line: line.number,
        message: format!("\"{key}\" must be 64 hex digits"),
    };
    let bytes = hex::decode(text_field(line, key)?).map_err(|_| bad())?;
    bytes.try_into().map_err(|_| bad())
}

/// The key an auditor pins: an Ed25519 public key, 64 hex digits as `referee audit key`
/// prints it. Anything else is refused as malformed, never compared as a mismatch.
pub fn expected_key(hex_key: &str) -> Result<VerifyingKey, Error> {
    let bad = |why: &str| Error::PinnedKey {
        key: hex_key.to_owned(),
        why: why.to_owned(),
    };
    let bytes: [u8; 32] = hex::decode(hex_key)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("must be 64 hex digits"))?;
    VerifyingKey::from_bytes(&bytes).map_err(|_| bad("is not a point of the Ed25519 curve"))
}

/// The one algorithm bundles are signed with (`bundle::sign`).
const SIGNATURE_ALG: &str = "ed25519";
/// The fields of the signature line, all required; any other field is refused.
const SIGNATURE_FIELDS: [&str; 4] = ["type", "alg", "key", "signature"];

/// The signature line holds exactly the fields `bundle::sign` writes, and names the one
/// algorithm: a line that says `"alg":"none"` or carries extra fields is not ours to trust.
fn check_signature_fields(sig: &Line) -> Result<(), Error> {
    let malformed = |message: String| Error::Malformed {
        line: sig.number,
        message,
    };
    if let Some(object) = sig.value.as_object()
        && let Some(extra) = object
            .keys()
            .find(|k| !SIGNATURE_FIELDS.contains(&k.as_str()))
    {
        return Err(malformed(format!(
            "unknown field {} in the signature line; it holds only {}",
            crate::quote::quote(extra),
            SIGNATURE_FIELDS.join(", ")
        )));
    }
    let alg = text_field(sig, "alg")?;
    if alg != SIGNATURE_ALG {
        return Err(malformed(format!(
            "\"alg\" must be \"{SIGNATURE_ALG}\", the one algorithm bundles are signed with, \
             not {}",
            crate::quote::quote(&alg)
        )));
    }
    Ok(())
}

/// The signature covers every byte of the bundle before the signature line.
fn check_signature(
    text: &str,
    sig: &Line,
    pinned: Option<&str>,
    report: &mut Report,
) -> Result<(), Error> {
    if kind(sig) != "signature" {
        report.problems.push(format!(
            "line {}: the last line is not the signature; the bundle is cut short or extended",
            sig.number
        ));
        return Ok(());
    }
    check_signature_fields(sig)?;
    let key_hex = text_field(sig, "key")?;
    let signed_len = text
        .lines()
        .take(sig.number - 1)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let signed = text.get(..signed_len).unwrap_or(text);
    let key = hex::decode(&key_hex)
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .and_then(|b| VerifyingKey::from_bytes(&b).ok());
    let signature = hex::decode(text_field(sig, "signature")?)
        .ok()
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
        .map(|b| Signature::from_bytes(&b));
    match (key, signature) {
        (Some(key), Some(signature)) if key.verify(signed.as_bytes(), &signature).is_ok() => {
            report.held.push(format!("signature: valid Ed25519 signature by key {key_hex}"));
        }
        _ => report.problems.push(format!("line {}: the signature does not match the bundle's content: something was altered after signing", sig.number)),
    }
    match pinned {
        Some(p) if !p.eq_ignore_ascii_case(&key_hex) => {
            report.problems.push(format!(
                "the bundle is signed by key {key_hex}, not by the expected key {p}"
            ));
        }
        Some(_) => report.held.push("signing key: the expected key".into()),
        None => report
            .held
            .push("signing key: not pinned (pass --key to check whose key signed)".into()),
    }
    Ok(())
}

/// Rebuilds each record from its line and checks its hash and its link to the one before.
fn check_chain(lines: &[Line], report: &mut Report) -> Result<Vec<(Record, usize)>, Error> {
    let game = lines
        .iter()
        .find(|l| kind(l) == "audit")
        .map(|l| text_field(l, "game"))
        .transpose()?
        .unwrap_or_default();
    let mut records = Vec::new();
    let mut prev = ZERO_HASH;
    for line in lines
        .iter()
        .filter(|l| matches!(kind(l), "header" | "event"))
    {
        let record = Record {
            game: game.clone(),
            seq: uint_field(line, "seq")?,
            event_id: text_field(line, "event_id")?,
            received_ms: uint_field(line, "received_ms")?,
            writer: text_field(line, "writer")?,
            body: field(line, "line")?.to_string(),
            prev_hash: hash_field(line, "prev_hash")?,
            hash: hash_field(line, "hash")?,
        };
        let expected_seq = u64::try_from(records.len()).unwrap_or(u64::MAX);
        if record.seq != expected_seq {
            report.problems.push(format!("line {}: seq {} where seq {expected_seq} should be: a record is missing or reordered", line.number, record.seq));
        }
        if record.prev_hash != prev {
            report.problems.push(format!(
                "line {}: seq {} does not chain to the record before it",
                line.number, record.seq
            ));
        }
        match record.computed_hash() {
            Ok(h) if h == record.hash => {}
            _ => report.problems.push(format!(
                "line {}: seq {} was altered: its content does not hash to its recorded hash",
                line.number, record.seq
            )),
        }
        prev = record.hash;
        records.push((record, line.number));
    }
    if records.is_empty() {
        report
            .problems
            .push("the bundle has no header record".into());
    } else {
        report.held.push(format!(
            "chain: {} records, head {}",
            records.len(),
            hex::encode(prev)
        ));
    }
    Ok(records)
}

/// Replays the recorded events with this build's rules and compares rulings and result.
fn check_rulings(
    lines: &[Line],
    records: &[(Record, usize)],
    report: &mut Report,
) -> Result<(), Error> {
    let Some(((header_record, header_line), events)) = records.split_first() else {
        return Ok(());
    };
    let header = header_from_json(&header_record.body).map_err(|m| Error::Malformed {
        line: *header_line,
        message: m,
    })?;
    let mut referee = Referee::new(&header).map_err(|e| Error::Malformed {
        line: *header_line,
        message: e.to_string(),
    })?;
    for (record, line) in events {
        let event =
            event_from_json(&record.body, header.variant, Some(record.seq)).map_err(|m| {
                Error::Malformed {
                    line: *line,
                    message: m,
                }
            })?;
        referee.apply(record.seq, &event);
    }
    let recorded: Vec<(usize, Value)> = lines
        .iter()
        .filter(|l| kind(l) == "ruling")
        .map(|l| {
            let mut v = l.value.clone();
            v.as_object_mut().expect("object").remove("type");
            (l.number, v)
        })
        .collect();
    let derived: Vec<Value> = referee
        .rulings()
        .iter()
        .map(|r| r.to_value(header.variant))
        .collect();
    compare_rulings(&recorded, &derived, report);
    compare_result(lines, &referee, report);
    Ok(())
}

fn compare_rulings(recorded: &[(usize, Value)], derived: &[Value], report: &mut Report) {
    let before = report.problems.len();
    for i in 0..recorded.len().max(derived.len()) {
        match (recorded.get(i), derived.get(i)) {
            (Some((_, r)), Some(d)) if r == d => {}
            (Some((line, r)), Some(d)) => report.problems.push(format!(
                "line {line}: recorded ruling {r} but this build derives {d}"
            )),
            (Some((line, r)), None) => report.problems.push(format!(
                "line {line}: recorded ruling {r} is not derived by this build"
            )),
            (None, Some(d)) => report.problems.push(format!(
                "this build derives a ruling the bundle does not record: {d}"
            )),
            (None, None) => {}
        }
    }
    if report.problems.len() == before {
        report.held.push(format!(
            "rulings: the {} recorded rulings are exactly those this build derives",
            recorded.len()
        ));
    }
}

fn compare_result(lines: &[Line], referee: &Referee, report: &mut Report) {
    let recorded = lines.iter().find(|l| kind(l) == "result").and_then(|l| {
        l.value
            .get("result")
            .and_then(Value::as_str)
            .map(String::from)
    });
    let derived = referee.ending().map(|e| e.result.as_str().to_string());
    if recorded == derived {
        report.held.push(format!(
            "result: {}",
            derived.as_deref().unwrap_or("none (game not over)")
        ));
    } else {
        report.problems.push(format!(
            "the bundle records result {} but this build derives {}",
            recorded.as_deref().unwrap_or("none"),
            derived.as_deref().unwrap_or("none")
        ));
    }
}
