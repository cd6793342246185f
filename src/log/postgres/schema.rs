//! The tables and the append function, created at open if absent, and their version.
//!
//! The tables are plain SQL that CockroachDB and YugabyteDB also speak: a sequence, primary
//! keys, UNIQUE constraints, `ON CONFLICT DO NOTHING`; no triggers or advisory locks. Appends
//! go through one PL/pgSQL function, `referee_append_batch` (see [`APPEND_BATCH`]), so that a
//! group of appends to many games costs one round trip; it is PostgreSQL's dialect (YugabyteDB
//! speaks it; CockroachDB's PL/pgSQL has not been tried).
//!
//! - `referee_games`: one row per game; `number` (from a sequence) is its creation order.
//! - `referee_records`: every record, the header at seq 0. The primary key (game, seq) is what
//!   makes two appenders racing for one seq fail (the second waits for the first's commit,
//!   then gets SQLSTATE 23505); UNIQUE (game, event_id) is exactly-once by event id, forever.
//!   The header's event id is empty, which no event's can be.
//! - `referee_heads`: each game's last seq and its record's hash, moved in the transaction
//!   that inserts the records, so damage to the last record is caught as with sled.
//! - `referee_shared`: lines every instance shares, by kind, in the order first written
//!   (`PgLog::share`): the token file's grant and revocation lines, the audit signing key.
//!   Added beside version 1's tables (created if absent; a referee that predates it ignores
//!   it).
//! - `referee_leases`: which instance writes each game, and the epoch of its claim (see
//!   `lease`). A row, not an advisory lock: a lock belongs to a session and is gone after a
//!   failover, a row is replicated with the log it guards.
//!
//! Upgrading: the tables are unchanged since version 1, so [`VERSION`] stays 1 and a referee
//! that predates the functions still opens the database. The functions are created (or
//! replaced, `CREATE OR REPLACE FUNCTION`) when `referee_append_batch`'s comment does not name
//! [`FUNCTION_VERSION`]: a database made by a previous referee gains them at the first open by
//! this one. Version 2 added `referee_append_one` and rewrote the batch's statements as
//! lookups by key; its signature is version 1's, so a referee of version 1 still running
//! beside this one (a rolling upgrade) calls the new body with the same results. The change is
//! made while holding the `referee_schema` row, so instances opening together do not replace
//! it at the same time (PostgreSQL fails concurrent replacements with "tuple concurrently
//! updated").

use tokio_postgres::Client;
use tokio_postgres::error::SqlState;

use super::{Error, failed};

/// The schema this code writes and reads. A database at a higher version was written by a
/// newer referee and is refused rather than misread.
pub(super) const VERSION: i32 = 1;

/// The append function's version, kept in its comment; a different one is replaced at open.
const FUNCTION_VERSION: &str = "referee_append_batch 2";

const TABLES: &str = "
CREATE TABLE IF NOT EXISTS referee_schema (
    one BOOL PRIMARY KEY DEFAULT true CHECK (one),
    version INT NOT NULL
);
CREATE SEQUENCE IF NOT EXISTS referee_game_number;
CREATE TABLE IF NOT EXISTS referee_games (
    game TEXT PRIMARY KEY,
    number BIGINT NOT NULL UNIQUE DEFAULT nextval('referee_game_number'),
    created_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS referee_records (
    game TEXT NOT NULL REFERENCES referee_games (game),
    seq BIGINT NOT NULL CHECK (seq >= 0),
    event_id TEXT NOT NULL,
    received_ms BIGINT NOT NULL,
    writer TEXT NOT NULL,
    body TEXT NOT NULL,
    prev_hash BYTEA NOT NULL,
    hash BYTEA NOT NULL,
    PRIMARY KEY (game, seq),
    UNIQUE (game, event_id)
);
CREATE TABLE IF NOT EXISTS referee_leases (
    game TEXT PRIMARY KEY REFERENCES referee_games (game),
    holder TEXT NOT NULL,
    epoch BIGINT NOT NULL CHECK (epoch > 0),
    taken_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS referee_heads (
    game TEXT PRIMARY KEY REFERENCES referee_games (game),
    last_seq BIGINT NOT NULL,
    head_hash BYTEA NOT NULL
);
CREATE TABLE IF NOT EXISTS referee_shared (
    n BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    line TEXT NOT NULL,
    UNIQUE (kind, line)
);
";

/// The group append: the appends of many games decided and written by one statement, in its
/// own transaction (autocommit), so that they cost one round trip and one commit together.
/// PostgreSQL flushes the WAL before the statement's result is sent (see `batch`).
///
/// Requests are given column-wise, one array element per request (`p_games` distinct), and
/// their records one array element per record (`p_requests` names each one's request, 1-based,
/// records of a request in seq order), sealed by the caller on the head it believed
/// (`p_sealed_on`, NULL if it knew none). Per request, the same checks, in the same order, as
/// one append's transaction made before:
///
/// 1. the lease (fencing): the lease rows of the leased games are locked, in game order, and
///    a request whose epoch is not the row's is `fenced` (the row's holder and epoch), one
///    without a lease row `unknown`. A claim made meanwhile waits for this COMMIT.
/// 2. the head: the head rows are locked, in game order (batches sharing games then queue
///    instead of deadlocking); no head row is `unknown`.
/// 3. the event ids: a request with any id already stored is answered with the stored records
///    (`stored`; the caller tells an exact retry from a reuse), nothing written.
/// 4. the seq: `p_after` (expected seq - 1) must be the head's seq (`mismatch`), and the
///    records must have been sealed on the head's hash (`unsealed`: the caller seals them again
///    on the head returned and resends them).
/// 5. the rest are written: records inserted, heads moved, and answered `ok`. With `p_notify`
///    (only referees of version 1 pass it) watchers on other instances are notified at COMMIT;
///    this referee notifies after the acknowledgements instead (see `notify`).
///
/// One statement per step for the whole group, not per game, and each finds its rows through
/// a key: the games' rows by `game = ANY (...)` (PostgreSQL's index scan for a list of keys,
/// sorted before they are locked), stored event ids by a lookup per id. Joining the parameter
/// arrays with the tables instead let the planner scan the tables whole whenever they were
/// small when planned, and a plan kept by a connection then scanned them whole for ever
/// (`appends_find_their_rows_by_key_whatever_the_size_of_the_tables` in tests/postgres_log.rs
/// reads the plans).
const APPEND_BATCH: &str = r"
CREATE OR REPLACE FUNCTION referee_append_batch(
    p_games TEXT[], p_leases BIGINT[], p_after BIGINT[], p_sealed_on BYTEA[],
    p_last BIGINT[], p_last_hash BYTEA[],
    p_requests INT[], p_seqs BIGINT[], p_event_ids TEXT[], p_received BIGINT[],
    p_writers TEXT[], p_bodies TEXT[], p_prevs BYTEA[], p_hashes BYTEA[],
    p_notify BOOL
) RETURNS TABLE (
    seq BIGINT, event_id TEXT, received_ms BIGINT, writer TEXT, body TEXT,
    prev_hash BYTEA, hash BYTEA,
    request INT, outcome TEXT, last_seq BIGINT, head_hash BYTEA, holder TEXT, epoch BIGINT
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    n INT := cardinality(p_games);
    v_open BOOL[] := array_fill(true, ARRAY[n]);
    v_leased BOOL[] := array_fill(false, ARRAY[n]);
    v_stored BOOL[] := array_fill(false, ARRAY[n]);
    v_go BOOL[] := array_fill(false, ARRAY[n]);
    v_last BIGINT[] := array_fill(NULL::BIGINT, ARRAY[n]);
    v_hash BYTEA[] := array_fill(NULL::BYTEA, ARRAY[n]);
    v_row RECORD;
BEGIN
    FOR v_row IN
        SELECT q.i::INT AS i, q.held, l.holder AS l_holder, l.epoch AS l_epoch
        FROM (SELECT * FROM referee_leases
              WHERE game = ANY (ARRAY(SELECT u.game FROM unnest(p_games, p_leases) AS u(game, held)
                                      WHERE u.held IS NOT NULL))
              ORDER BY game
              FOR NO KEY UPDATE) l
        JOIN unnest(p_games, p_leases) WITH ORDINALITY AS q(game, held, i) ON q.game = l.game
        WHERE q.held IS NOT NULL
    LOOP
        v_leased[v_row.i] := true;
        IF v_row.l_epoch <> v_row.held THEN
            v_open[v_row.i] := false;
            request := v_row.i; outcome := 'fenced';
            holder := v_row.l_holder; epoch := v_row.l_epoch;
            RETURN NEXT;
        END IF;
    END LOOP;
    holder := NULL; epoch := NULL;
    FOR i IN 1..n LOOP
        IF p_leases[i] IS NOT NULL AND NOT v_leased[i] THEN
            v_open[i] := false;
            request := i; outcome := 'unknown';
            RETURN NEXT;
        END IF;
    END LOOP;

    FOR v_row IN
        SELECT q.i::INT AS i, h.last_seq AS h_last, h.head_hash AS h_hash
        FROM (SELECT * FROM referee_heads
              WHERE game = ANY (ARRAY(SELECT u.game FROM unnest(p_games) WITH ORDINALITY AS u(game, i)
                                      WHERE v_open[u.i::INT]))
              ORDER BY game
              FOR NO KEY UPDATE) h
        JOIN unnest(p_games) WITH ORDINALITY AS q(game, i) ON q.game = h.game
    LOOP
        v_last[v_row.i] := v_row.h_last;
        v_hash[v_row.i] := v_row.h_hash;
    END LOOP;

    FOR v_row IN
        SELECT x.req, r.seq AS r_seq, r.event_id AS r_event_id, r.received_ms AS r_received,
               r.writer AS r_writer, r.body AS r_body, r.prev_hash AS r_prev, r.hash AS r_hash
        FROM unnest(p_requests, p_event_ids) AS x(req, event_id)
        CROSS JOIN LATERAL (
            SELECT * FROM referee_records r
            WHERE r.game = p_games[x.req] AND r.event_id = x.event_id
            OFFSET 0
        ) r
        WHERE v_open[x.req] AND v_last[x.req] IS NOT NULL
    LOOP
        v_stored[v_row.req] := true;
        seq := v_row.r_seq; event_id := v_row.r_event_id; received_ms := v_row.r_received;
        writer := v_row.r_writer; body := v_row.r_body;
        prev_hash := v_row.r_prev; hash := v_row.r_hash;
        request := v_row.req; outcome := 'stored';
        RETURN NEXT;
    END LOOP;
    seq := NULL; event_id := NULL; received_ms := NULL; writer := NULL; body := NULL;
    prev_hash := NULL; hash := NULL;

    FOR i IN 1..n LOOP
        CONTINUE WHEN NOT v_open[i] OR v_stored[i];
        request := i; last_seq := v_last[i]; head_hash := v_hash[i];
        IF v_last[i] IS NULL THEN
            outcome := 'unknown';
        ELSIF v_last[i] <> p_after[i] THEN
            outcome := 'mismatch';
        ELSIF p_sealed_on[i] IS DISTINCT FROM v_hash[i] THEN
            outcome := 'unsealed';
        ELSE
            v_go[i] := true;
            CONTINUE;
        END IF;
        RETURN NEXT;
    END LOOP;

    INSERT INTO referee_records
        (game, seq, event_id, received_ms, writer, body, prev_hash, hash)
    SELECT p_games[x.req], x.seq, x.event_id, x.received, x.writer, x.body, x.prev, x.hash
    FROM unnest(p_requests, p_seqs, p_event_ids, p_received, p_writers, p_bodies, p_prevs,
                p_hashes) AS x(req, seq, event_id, received, writer, body, prev, hash)
    WHERE v_go[x.req];

    UPDATE referee_heads h SET last_seq = q.new_last, head_hash = q.new_hash
    FROM unnest(p_games, p_last, p_last_hash) WITH ORDINALITY AS q(game, new_last, new_hash, i)
    WHERE h.game = ANY (ARRAY(SELECT u.game FROM unnest(p_games) WITH ORDINALITY AS u(game, i)
                              WHERE v_go[u.i::INT]))
      AND h.game = q.game AND v_go[q.i::INT];

    IF p_notify THEN
        PERFORM pg_notify('referee_log', q.new_last || ' ' || q.game)
        FROM unnest(p_games, p_last) WITH ORDINALITY AS q(game, new_last, i)
        WHERE v_go[q.i::INT];
    END IF;

    FOR i IN 1..n LOOP
        CONTINUE WHEN NOT v_go[i];
        request := i; outcome := 'ok'; last_seq := p_last[i]; head_hash := p_last_hash[i];
        RETURN NEXT;
    END LOOP;
END
$$;
";

/// The append of one game alone, as [`APPEND_BATCH`] decides it for a group of one, with the
/// same checks in the same order and the same result rows (`request` 1). A separate function
/// because a group of one is what a quiet hall and every one-board stream sends, and there
/// the batch's statements cost more to start than to run: joins of the parameter arrays with
/// the tables, each executor set up afresh per call. Here each step is a lookup by primary or
/// unique key of one game (BENCHMARKS.md, issue 33, has the figures).
const APPEND_ONE: &str = r"
CREATE OR REPLACE FUNCTION referee_append_one(
    p_game TEXT, p_lease BIGINT, p_after BIGINT, p_sealed_on BYTEA,
    p_last BIGINT, p_last_hash BYTEA,
    p_seqs BIGINT[], p_event_ids TEXT[], p_received BIGINT[],
    p_writers TEXT[], p_bodies TEXT[], p_prevs BYTEA[], p_hashes BYTEA[]
) RETURNS TABLE (
    seq BIGINT, event_id TEXT, received_ms BIGINT, writer TEXT, body TEXT,
    prev_hash BYTEA, hash BYTEA,
    request INT, outcome TEXT, last_seq BIGINT, head_hash BYTEA, holder TEXT, epoch BIGINT
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_holder TEXT;
    v_epoch BIGINT;
    v_last BIGINT;
    v_hash BYTEA;
    v_stored BOOL := false;
    v_row RECORD;
BEGIN
    request := 1;
    IF p_lease IS NOT NULL THEN
        SELECT l.holder, l.epoch INTO v_holder, v_epoch
        FROM referee_leases l WHERE l.game = p_game
        FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            outcome := 'unknown';
            RETURN NEXT;
            RETURN;
        END IF;
        IF v_epoch <> p_lease THEN
            outcome := 'fenced'; holder := v_holder; epoch := v_epoch;
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;

    SELECT h.last_seq, h.head_hash INTO v_last, v_hash
    FROM referee_heads h WHERE h.game = p_game
    FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        outcome := 'unknown';
        RETURN NEXT;
        RETURN;
    END IF;

    FOR v_row IN
        SELECT r.seq AS r_seq, r.event_id AS r_event_id, r.received_ms AS r_received,
               r.writer AS r_writer, r.body AS r_body, r.prev_hash AS r_prev, r.hash AS r_hash
        FROM referee_records r
        WHERE r.game = p_game AND r.event_id = ANY (p_event_ids)
        ORDER BY r.seq
    LOOP
        v_stored := true;
        seq := v_row.r_seq; event_id := v_row.r_event_id; received_ms := v_row.r_received;
        writer := v_row.r_writer; body := v_row.r_body;
        prev_hash := v_row.r_prev; hash := v_row.r_hash;
        outcome := 'stored';
        RETURN NEXT;
    END LOOP;
    IF v_stored THEN
        RETURN;
    END IF;

    last_seq := v_last; head_hash := v_hash;
    IF v_last <> p_after THEN
        outcome := 'mismatch';
        RETURN NEXT;
        RETURN;
    END IF;
    IF p_sealed_on IS DISTINCT FROM v_hash THEN
        outcome := 'unsealed';
        RETURN NEXT;
        RETURN;
    END IF;

    INSERT INTO referee_records
        (game, seq, event_id, received_ms, writer, body, prev_hash, hash)
    SELECT p_game, x.seq, x.event_id, x.received, x.writer, x.body, x.prev, x.hash
    FROM unnest(p_seqs, p_event_ids, p_received, p_writers, p_bodies, p_prevs, p_hashes)
        AS x(seq, event_id, received, writer, body, prev, hash);
    UPDATE referee_heads h SET last_seq = p_last, head_hash = p_last_hash
    WHERE h.game = p_game;

    outcome := 'ok'; last_seq := p_last; head_hash := p_last_hash;
    RETURN NEXT;
END
$$;
";

/// Creates the tables if absent and checks the stored version.
pub(super) async fn create(client: &mut Client) -> Result<(), Error> {
    // Two instances opening a fresh database at once can both try to create a table; the
    // loser's CREATE ... IF NOT EXISTS fails on PostgreSQL's catalog with 23505 or 42P07.
    // Once the winner committed, a second try finds everything there.
    let mut tries = 0;
    loop {
        match create_once(client).await {
            Ok(()) => break,
            Err(e) if racing(&e) && tries < 2 => tries += 1,
            Err(e) => return Err(failed("creating the schema", e)),
        }
    }
    check_version(client).await
}

async fn create_once(client: &mut Client) -> Result<(), tokio_postgres::Error> {
    let transaction = client.transaction().await?;
    transaction.batch_execute(TABLES).await?;
    transaction
        .execute(
            "INSERT INTO referee_schema (version) VALUES ($1) ON CONFLICT DO NOTHING",
            &[&VERSION],
        )
        .await?;
    // Holding the schema row makes instances that open together take turns below.
    transaction
        .execute("SELECT 1 FROM referee_schema FOR UPDATE", &[])
        .await?;
    let row = transaction
        .query_one(
            "SELECT obj_description(to_regproc('referee_append_batch'), 'pg_proc')",
            &[],
        )
        .await?;
    if row.get::<_, Option<String>>(0).as_deref() != Some(FUNCTION_VERSION) {
        transaction.batch_execute(APPEND_BATCH).await?;
        transaction.batch_execute(APPEND_ONE).await?;
        transaction
            .batch_execute(&format!(
                "COMMENT ON FUNCTION referee_append_batch IS '{FUNCTION_VERSION}'"
            ))
            .await?;
    }
    transaction.commit().await
}

fn racing(e: &tokio_postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(code) if *code == SqlState::UNIQUE_VIOLATION || *code == SqlState::DUPLICATE_TABLE
    )
}

async fn check_version(client: &Client) -> Result<(), Error> {
    let row = client
        .query_one("SELECT version FROM referee_schema", &[])
        .await
        .map_err(|e| failed("reading the schema version", e))?;
    let stored: i32 = row.get(0);
    if stored > VERSION {
        return Err(Error::Storage(format!(
            "postgres: the database's referee schema is version {stored}, newer than this \
             referee's {VERSION}: run a newer referee"
        )));
    }
    Ok(())
}
