//! `referee store check | adopt | rebuild` as an operator runs them, and the server's refusal
//! to serve a game whose store was rolled back (issue 20).

use std::path::Path;
use std::process::Output;

use crate::common::referee;
use referee::log::{ANCHOR_FILE, Error, Log, NewEvent, SledLog};

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const GAMES: [&str; 3] = ["ch-r1-b1", "ch-r1-b2", "ch-r1-b3"];

/// Three games of 5, 10 and 15 events; returns each game's head hash.
async fn three_games(dir: &Path) -> Vec<[u8; 32]> {
    let log = SledLog::open(dir).expect("open");
    let mut heads = Vec::new();
    for (i, game) in GAMES.iter().enumerate() {
        let header = format!(r#"{{"type":"game","variant":"xiangqi","id":"{game}"}}"#);
        log.create(game, header, "test").await.unwrap().unwrap();
        let n = 5 * (i as u64 + 1);
        for seq in 1..=n {
            let event = NewEvent {
                event_id: format!("{game}-{seq}"),
                body: r#"{"type":"draw_offer","side":"red"}"#.into(),
                writer: "test".into(),
            };
            log.append(game, seq, vec![event]).await.unwrap().unwrap();
        }
        heads.push(log.info(game).await.unwrap().unwrap().head_hash);
    }
    heads
}

/// Each game's audit bundle as `referee audit export` writes it.
fn export_bundles(data: &Path, out: &Path, games: &[&str]) {
    std::fs::create_dir_all(out).expect("mkdir");
    for game in games {
        let file = out.join(format!("{game}.txt"));
        let done = referee(&[
            "audit",
            "export",
            game,
            "--data",
            path(data),
            "--out",
            path(&file),
        ]);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    }
}

#[tokio::test]
async fn check_reports_each_game_and_rebuild_restores_from_bundles_and_the_old_store() {
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    let heads = three_games(&data).await;
    crate::common::released(&data);
    let bundles = root.path().join("bundles");
    export_bundles(&data, &bundles, &GAMES[..2]);

    let check = referee(&["store", "check", "--data", path(&data)]);
    assert!(check.status.success(), "{}", stdout(&check));
    assert!(
        stdout(&check).contains("3 games: 3 hold, 0 damaged"),
        "{}",
        stdout(&check)
    );

    // A store whose sled files are gone but whose anchor remains: every game is lost.
    for entry in std::fs::read_dir(&data).expect("dir").flatten() {
        let name = entry.file_name();
        if name == "db" || name == "conf" {
            std::fs::write(entry.path(), b"").expect("empty");
        }
    }
    let check = referee(&["store", "check", "--data", path(&data)]);
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));

    let rebuilt = root.path().join("rebuilt");
    let args = [
        "store",
        "rebuild",
        "--data",
        path(&rebuilt),
        "--from-bundles",
        path(&bundles),
        "--from-store",
        path(&data),
    ];
    let rebuild = referee(&args);
    let said = stdout(&rebuild);
    assert_eq!(rebuild.status.code(), Some(1), "a game is lost: {said}");
    assert!(said.contains("restored  ch-r1-b1  seqs 0..=5"), "{said}");
    assert!(said.contains("restored  ch-r1-b2  seqs 0..=10"), "{said}");
    assert!(
        said.contains("LOST      ch-r1-b3  acknowledged up to seq 15"),
        "{said}"
    );

    let log = SledLog::open(&rebuilt).expect("open rebuilt");
    for (game, head) in GAMES[..2].iter().zip(&heads) {
        let info = log.info(game).await.unwrap().expect("restored");
        assert_eq!(
            &info.head_hash, head,
            "{game}: the chain head is the original"
        );
    }
    // A restored game takes new events on its original chain.
    let next = NewEvent {
        event_id: "ch-r1-b1-6".into(),
        body: r#"{"type":"resign","side":"red"}"#.into(),
        writer: "test".into(),
    };
    let appended = log
        .append("ch-r1-b1", 6, vec![next])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(appended.records[0].prev_hash, heads[0]);
}

#[tokio::test]
async fn a_rolled_back_game_is_data_loss_and_adopt_accepts_a_restored_copy() {
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    let old_copy = root.path().join("copy");
    {
        let log = SledLog::open(&data).expect("open");
        log.create("g1", r#"{"variant":"xiangqi","id":"g1"}"#.into(), "t")
            .await
            .unwrap()
            .unwrap();
        log.create("g2", r#"{"variant":"xiangqi","id":"g2"}"#.into(), "t")
            .await
            .unwrap()
            .unwrap();
    }
    // A copy of the files taken now (an operator's backup), then more play on g1.
    crate::common::released(&data);
    copy_dir(&data, &old_copy);
    {
        crate::common::released(&data);
        let log = SledLog::open(&data).expect("open");
        for seq in 1..=3 {
            let event = NewEvent {
                event_id: format!("e{seq}"),
                body: r#"{"type":"draw_offer","side":"red"}"#.into(),
                writer: "t".into(),
            };
            log.append("g1", seq, vec![event]).await.unwrap().unwrap();
        }
    }
    // The backup's sled files put back under the newer anchor: g1 rolled back by 3 events.
    for entry in std::fs::read_dir(&old_copy).expect("dir").flatten() {
        if entry.file_name() != ANCHOR_FILE && entry.file_type().expect("type").is_file() {
            std::fs::copy(entry.path(), data.join(entry.file_name())).expect("restore");
        }
    }
    {
        crate::common::released(&data);
        let log = SledLog::open(&data).expect("opens: g2 is intact");
        match log.read("g1", 0, None).await {
            Err(Error::DataLoss { seq, detail, .. }) => {
                assert_eq!(seq, 1);
                assert!(detail.contains("seqs 1..=3 are missing"), "{detail}");
            }
            other => panic!("g1 must be DATA_LOSS, got {other:?}"),
        }
        assert_eq!(log.read("g2", 0, None).await.unwrap().unwrap().len(), 1);
        let info = log.games().await.unwrap();
        assert!(info.iter().any(|i| i.game == "g1" && i.damage.is_some()));
        let refused = log
            .append(
                "g1",
                1,
                vec![NewEvent {
                    event_id: "x".into(),
                    body: "{}".into(),
                    writer: "t".into(),
                }],
            )
            .await;
        assert!(
            matches!(refused, Err(Error::DataLoss { .. })),
            "{refused:?}"
        );
    }
    // The operator accepts the backup on purpose.
    let adopt = referee(&["store", "adopt", "--data", path(&data)]);
    let said = stdout(&adopt);
    assert!(adopt.status.success(), "{said}");
    assert!(
        said.contains("acknowledged up to seq 3, adopted at seq 0"),
        "{said}"
    );
    crate::common::released(&data);
    let log = SledLog::open(&data).expect("open after adopt");
    assert_eq!(log.read("g1", 0, None).await.unwrap().unwrap().len(), 1);
    drop(log);

    // A removed anchor is noticed, not taken for a store that never had one.
    std::fs::remove_file(data.join(ANCHOR_FILE)).expect("rm anchor");
    crate::common::released(&data);
    let refused = SledLog::open(&data)
        .err()
        .expect("refused without its anchor");
    assert!(refused.to_string().contains("missing"), "{refused}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn rebuild_refuses_a_malformed_key_before_touching_anything() {
    let root = tempfile::tempdir().expect("tempdir");
    let bundles = root.path().join("bundles");
    std::fs::create_dir_all(&bundles).expect("mkdir");
    let rebuilt = root.path().join("rebuilt");
    let out = referee(&[
        "store",
        "rebuild",
        "--data",
        path(&rebuilt),
        "--from-bundles",
        path(&bundles),
        "--key",
        "zz",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("referee: --key \"zz\": must be 64 hex digits"),
        "{stderr}"
    );
    assert!(!rebuilt.exists(), "nothing was created");
}

/// The anchor's bytes, and where its line for `game` starts.
fn anchor_line(data: &Path, game: &str) -> (Vec<u8>, usize) {
    let bytes = std::fs::read(data.join(ANCHOR_FILE)).expect("anchor");
    let needle = format!("\"{game}\"");
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .expect("the game's line");
    let start = bytes[..at].iter().rposition(|&b| b == b'\n').expect("line") + 1;
    (bytes, start)
}

/// The three games, their anchor written anew as every start writes it: one line per game,
/// in the order of their numbers.
async fn three_games_anchored(data: &Path) {
    three_games(data).await;
    crate::common::released(data);
    drop(SledLog::open(data).expect("open"));
    crate::common::released(data);
}

/// What a fresh open of `data` serves of each game: its records' count, or the error.
async fn served(data: &Path) -> (Vec<Result<usize, Error>>, Vec<String>) {
    crate::common::released(data);
    let log = SledLog::open(data).expect("opens");
    let mut each = Vec::new();
    for game in GAMES {
        each.push(log.read(game, 0, None).await.map(|r| r.unwrap().len()));
    }
    (each, log.recovery().1.to_vec())
}

#[tokio::test]
async fn rot_in_the_anchor_padding_is_a_note_and_repaired_never_a_refusal() {
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    three_games(&data).await;
    crate::common::released(&data);
    let (mut bytes, _) = anchor_line(&data, GAMES[0]);
    let end = bytes.iter().position(|&b| b == 0).expect("padding");
    let rotten = end + 5000;
    bytes[rotten] ^= 0x10;
    std::fs::write(data.join(ANCHOR_FILE), &bytes).expect("rot");

    let check = referee(&["store", "check", "--data", path(&data)]);
    let said = stdout(&check);
    assert!(check.status.success(), "{said}");
    assert!(said.contains("3 games: 3 hold, 0 damaged"), "{said}");
    assert!(
        said.contains(&format!("the first at offset {rotten})")),
        "{said}"
    );

    let (each, notes) = served(&data).await;
    assert_eq!(
        each.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
        [6, 11, 16]
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("rot of the file, not data")),
        "{notes:?}"
    );
    // Written anew at that start: the padding is zeros again.
    let after = std::fs::read(data.join(ANCHOR_FILE)).expect("anchor");
    let end = after.iter().position(|&b| b == 0).expect("padding");
    assert!(after[end..].iter().all(|&b| b == 0), "the rot is cleared");
    let (_, notes) = served(&data).await;
    assert!(!notes.iter().any(|n| n.contains("rot")), "{notes:?}");
}

#[tokio::test]
async fn a_damaged_anchor_line_takes_down_only_its_game_until_adopted() {
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    three_games_anchored(&data).await;
    // A byte of the head hash in the line of the second game.
    let (mut bytes, start) = anchor_line(&data, GAMES[1]);
    let seq = start
        + bytes[start..]
            .iter()
            .position(|&b| b == b' ')
            .expect("number")
        + 1;
    let hash = seq + bytes[seq..].iter().position(|&b| b == b' ').expect("seq") + 1;
    bytes[hash + 4] ^= 0x01;
    std::fs::write(data.join(ANCHOR_FILE), &bytes).expect("flip");

    // store check first (it reads a copy): the same verdict the server gives.
    let check = referee(&["store", "check", "--data", path(&data)]);
    let said = stdout(&check);
    assert_eq!(check.status.code(), Some(1), "{said}");
    assert!(
        said.contains("3 games: 2 hold, 0 damaged, 1 unverified"),
        "{said}"
    );
    assert!(said.contains(&format!("ok       {}", GAMES[0])), "{said}");
    assert!(said.contains(&format!("ok       {}", GAMES[2])), "{said}");
    assert!(
        said.contains(&format!("UNVERIFIED {}", GAMES[1])) && said.contains("line 3 is damaged"),
        "{said}"
    );
    assert!(!said.contains("REFUSED"), "{said}");

    for start in ["first start", "restart after the anchor was written anew"] {
        let (each, notes) = served(&data).await;
        assert!(matches!(each[0], Ok(6)), "{start}: {each:?}");
        assert!(matches!(each[2], Ok(16)), "{start}: {each:?}");
        match &each[1] {
            Err(Error::DataLoss { game, detail, .. }) => {
                assert_eq!(game, GAMES[1]);
                assert!(
                    detail.contains("anchor.log line 3 is damaged")
                        && detail.contains("referee store adopt"),
                    "{start}: {detail}"
                );
            }
            other => panic!("{start}: the game of the damaged line must be DATA_LOSS: {other:?}"),
        }
        if start == "first start" {
            assert!(
                notes.iter().any(|n| n.contains("line 3 is damaged")
                    && n.contains(GAMES[1])
                    && n.contains("every other game is checked and served")),
                "{notes:?}"
            );
        }
    }

    // The operator, having checked the chain, accepts the store.
    crate::common::released(&data);
    let adopt = referee(&["store", "adopt", "--data", path(&data)]);
    let said = stdout(&adopt);
    assert!(adopt.status.success(), "{said}");
    assert!(
        said.contains(&format!("game \"{}\": unverified", GAMES[1])),
        "{said}"
    );
    let (each, _) = served(&data).await;
    assert_eq!(
        each.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
        [6, 11, 16]
    );
}

#[tokio::test]
async fn an_anchor_line_that_names_no_game_doubts_only_the_games_without_a_later_line() {
    let root = tempfile::tempdir().expect("tempdir");
    let data = root.path().join("data");
    three_games_anchored(&data).await;
    // The number and the id of the second game's line both unreadable.
    let (mut bytes, start) = anchor_line(&data, GAMES[1]);
    bytes[start] = b'x';
    let quote = start + bytes[start..].iter().position(|&b| b == b'"').expect("id");
    bytes[quote] = b'x';
    std::fs::write(data.join(ANCHOR_FILE), &bytes).expect("damage");

    let (each, notes) = served(&data).await;
    // Lines are sorted by game number: the first two games' last lines come before it.
    assert!(matches!(each[0], Err(Error::DataLoss { .. })), "{each:?}");
    assert!(matches!(each[1], Err(Error::DataLoss { .. })), "{each:?}");
    assert!(matches!(each[2], Ok(16)), "{each:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("cannot be traced to a game") && n.contains("the 2 games")),
        "{notes:?}"
    );
}

/// Every command that opens the store in place, while a server holds it: "in use", naming
/// the server's process and the remote form, never "damaged"; and once it stops, they work.
#[test]
fn a_store_a_server_holds_is_in_use_with_its_holder_named_never_damaged() {
    use std::time::Duration;

    let root = tempfile::tempdir().expect("tempdir");
    let mut server = crate::common::process::ServeProcess::start(root.path(), &[]);
    let data = root.path().join("data");
    let d = path(&data);
    let pid = server.pid();
    let fixture = crate::common::repo_path("replay-fixtures/xiangqi/advisor-leaves-palace.jsonl");
    let attempts: [(&str, Vec<&str>); 4] = [
        ("import --data", vec!["import", path(&fixture), "--data", d]),
        ("export --data", vec!["export", "g", "--log", "--data", d]),
        ("store check", vec!["store", "check", "--data", d]),
        (
            "a second serve",
            vec!["serve", "--addr", "127.0.0.1:0", "--data", d],
        ),
    ];
    for (what, args) in attempts {
        let done = crate::common::referee_within(&args, Duration::from_secs(20));
        let said = String::from_utf8_lossy(&done.stderr);
        assert!(!done.status.success(), "{what}: {said}");
        assert!(said.contains("in use, not damaged"), "{what}: {said}");
        assert!(
            said.contains(&format!("process {pid} (")) && said.contains(" serve "),
            "{what}: the holder must be named: {said}"
        );
        assert!(said.contains("--server URL"), "{what}: {said}");
        assert!(
            !said.contains("is damaged") && !said.contains("Restore"),
            "{what}: {said}"
        );
    }

    server.signal("TERM");
    server
        .wait_for_exit(Duration::from_secs(10))
        .expect("the server stops");
    crate::common::released(&data);
    let check = referee(&["store", "check", "--data", d]);
    assert!(check.status.success(), "{}", stdout(&check));
    let import = referee(&["import", path(&fixture), "--data", d]);
    assert!(
        import.status.success(),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
}
