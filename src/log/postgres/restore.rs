//! A whole game stored exactly as it was acknowledged elsewhere (another store, a verified
//! audit export): the records are written as they are, never re-sealed, so seqs, receive
//! times, writers and hashes stay the same, and with them every chain head that an audit
//! bundle signed earlier names. Sled's `restore` does the same; `referee store copy` uses both.

use std::collections::HashSet;

use tokio_postgres::Client;
use tokio_postgres::error::SqlState;

use super::super::limits::check_game_id;
use super::super::record::sealed_chain;
use super::super::{Error, GameInfo, Record, Rejection};
use super::append::{Attempt, begin, commit, exists, insert, raced_or};
use super::{chain, failed, to_i64};

/// Stores `records` (a whole game, header first) as a new game in one transaction: all or
/// nothing, so an interrupted copy never leaves half a game. Refused, nothing written, if the
/// game exists or the records are not one sound chain that re-seals to its own hashes.
pub(super) async fn restore(
    client: &mut Client,
    records: &[Record],
) -> Result<Attempt<GameInfo>, Error> {
    if let Err(rejection) = check(records) {
        return Ok(Attempt::Decided(Ok(Err(rejection))));
    }
    let (header, last) = match (records.first(), records.last()) {
        (Some(header), Some(last)) => (header, last),
        _ => return Ok(Attempt::Decided(Ok(Err(Rejection::EmptyAppend)))),
    };
    let game = header.game.as_str();
    let tx = begin(client).await?;
    if chain::head(&tx, game).await?.is_some() {
        return Ok(Attempt::Decided(Ok(Err(exists(game)))));
    }
    // The creation time is the header's receive time, as `create` writes it.
    let inserted = tx
        .execute(
            "INSERT INTO referee_games (game, created_ms) VALUES ($1, $2)",
            &[&game, &to_i64(header.received_ms)?],
        )
        .await;
    if let Err(e) = inserted {
        if e.code() == Some(&SqlState::UNIQUE_VIOLATION) {
            return Ok(Attempt::Decided(Ok(Err(exists(game)))));
        }
        return raced_or(e, "restoring a game").map(|()| Attempt::Raced);
    }
    if let Some(raced) = insert(&tx, records).await? {
        return Ok(raced);
    }
    tx.execute(
        "INSERT INTO referee_heads (game, last_seq, head_hash) VALUES ($1, $2, $3)",
        &[&game, &to_i64(last.seq)?, &last.hash.as_slice()],
    )
    .await
    .map_err(|e| failed("restoring a game's head", e))?;
    if let Some(raced) = commit(tx).await? {
        return Ok(raced);
    }
    Ok(Attempt::Decided(Ok(Ok(GameInfo {
        game: game.to_owned(),
        last_seq: last.seq,
        head_hash: last.hash,
        created_ms: header.received_ms,
        damage: None,
    }))))
}

/// What must hold before anything is written: a storable game id, one sound chain from the
/// header, and event ids unique in the game (else the UNIQUE constraint would fail the
/// insert, which reads as a lost race).
fn check(records: &[Record]) -> Result<(), Rejection> {
    let header = records.first().ok_or(Rejection::EmptyAppend)?;
    check_game_id(&header.game)?;
    sealed_chain(records).map_err(|(index, reason)| Rejection::BadEvent { index, reason })?;
    let mut seen = HashSet::new();
    for (index, record) in records.iter().enumerate().skip(1) {
        if !seen.insert(record.event_id.as_str()) {
            let reason = format!("event id {:?} is stored twice", record.event_id);
            return Err(Rejection::BadEvent { index, reason });
        }
    }
    Ok(())
}
