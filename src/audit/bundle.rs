//! Writing an audit bundle: JSON Lines — a preamble, the header record, every event record
//! (the interchange-format event plus seq, event id, server receive time, writer and chain
//! hashes, and the event in words as `referee replay` writes it, for the reader: the
//! verifier re-derives rulings, not words), the rulings and the result as this build derives
//! them, and last the Ed25519 signature over every byte before it.

use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};

use crate::log::{Log, Record};
use crate::referee::Referee;
use crate::stored::{self, load_log};

use super::Error;
use super::key::public_key_hex;

/// The bundle of `game`, signed with `key`.
pub async fn export<L: Log>(
    log: &L,
    game: &str,
    key: &SigningKey,
    now_ms: u64,
) -> Result<String, Error> {
    let loaded = load_log(log, game, None).await.map_err(|e| match e {
        stored::Error::Rejected(crate::log::Rejection::UnknownGame { .. }) => {
            Error::UnknownGame(game.to_string())
        }
        other => Error::Log(other.to_string()),
    })?;
    let mut referee = Referee::new(&loaded.header).map_err(|e| Error::Log(e.to_string()))?;
    let variant = loaded.header.variant;
    let mut lines = vec![json!({
        "type": "audit",
        "version": 1,
        "game": game,
        "variant": variant.name(),
        "records": loaded.events.len() + 1,
        "exported_ms": now_ms,
    })];
    lines.push(record_line("header", &loaded.header_record)?);
    for (record, event) in &loaded.events {
        let step = referee.step(record.seq, event);
        let mut line = record_line("event", record)?;
        line["words"] = step.words.into();
        lines.push(line);
    }
    for ruling in referee.rulings() {
        let mut line = serde_json::Map::new();
        line.insert("type".into(), "ruling".into());
        if let Value::Object(fields) = ruling.to_value(variant) {
            line.extend(fields);
        }
        lines.push(Value::Object(line));
    }
    let ending = referee.ending();
    lines.push(json!({
        "type": "result",
        "result": ending.map(|e| e.result.as_str()),
        "at": ending.map(|e| e.at),
        "head_hash": hex::encode(loaded.events.last().map_or(loaded.header_record.hash, |(r, _)| r.hash)),
    }));
    Ok(sign(&lines, key))
}

/// The lines as JSON Lines, followed by the Ed25519 signature over every byte before it.
pub(super) fn sign(lines: &[Value], key: &SigningKey) -> String {
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let signature = key.sign(text.as_bytes());
    let sig = json!({"type": "signature", "alg": "ed25519", "key": public_key_hex(key), "signature": hex::encode(signature.to_bytes())});
    text.push_str(&format!("{sig}\n"));
    text
}

/// A stored record as a bundle line; `kind` is `header` (seq 0) or `event`.
fn record_line(kind: &str, record: &Record) -> Result<Value, Error> {
    let body: Value = serde_json::from_str(&record.body)
        .map_err(|e| Error::Log(format!("seq {}: stored body is not JSON: {e}", record.seq)))?;
    Ok(json!({
        "type": kind,
        "seq": record.seq,
        "event_id": record.event_id,
        "received_ms": record.received_ms,
        "writer": record.writer,
        "prev_hash": hex::encode(record.prev_hash),
        "hash": hex::encode(record.hash),
        "line": body,
    }))
}
