//! Electronic boards under noise: from every replay fixture's moves and the 500 CCPD master
//! games, this simulator writes the `board` reports a sensor board would send for each move
//! (the mover's piece lifted, the taken piece removed, the piece put down, then a clock press
//! or a pause longer than the hold time), clean and with each kind of noise a hall sees:
//! captures reported in the reverse order, slides over other squares, flicker, one or two plies
//! of lost reports, a piece lifted and put back, a piece knocked onto a wrong square at the
//! commit, a board set up turned round, the chess_gjq result signal, play with and without a
//! clock. The referee derives moves from the reports alone; the test compares them with the
//! moves recorded and prints what it measured:
//!
//! - clean streams derive exactly the recorded moves (every one);
//! - noisy streams commit no wrong move without an incident (a `board_mismatch` or a ruling
//!   on the move) and derive at least 99.5% of the moves without the arbiter, over at least
//!   100,000 injected faults.

use std::collections::BTreeMap;
use std::path::Path;

use referee::event::{Event, EventKind, Header, Side, Square};
use referee::games::Variant;
use referee::games::sensor::{self, Placement};
use referee::referee::{Referee, RulingKind};
use serde_json::Value;

/// A recorded game: its header and its plies (a move, and a chess_gjq reveal with it).
pub struct Source {
    pub name: String,
    pub header: Header,
    pub plies: Vec<Vec<Event>>,
}

/// Every replay fixture's moves up to the first ruling on one (an illegal move changes what
/// the board would show), and the CCPD games'.
pub fn sources() -> Vec<Source> {
    let mut out: Vec<Source> = crate::fixtures::fixtures()
        .into_iter()
        .filter_map(|f| {
            let log = &f.log;
            let plies = recorded_plies(&log.header, &log.events);
            (!plies.is_empty()).then(|| Source {
                name: f.name.clone(),
                header: stream_header(&log.header),
                plies,
            })
        })
        .collect();
    out.extend(ccpd());
    out
}

/// The header a board's stream plays under: the game's start and rules, no time control (the
/// simulator's clock presses carry no times).
fn stream_header(header: &Header) -> Header {
    let mut h = header.clone();
    h.clock = None;
    h.rules.board_hold_ms = None;
    h.rules.board_touch = None;
    h
}

/// The moves of `events` that the referee takes as played, grouped by ply.
fn recorded_plies(header: &Header, events: &[Event]) -> Vec<Vec<Event>> {
    let Ok(mut referee) = Referee::new(&stream_header(header)) else {
        return Vec::new();
    };
    let mut plies: Vec<Vec<Event>> = Vec::new();
    let mut seq = 0;
    for event in events {
        let reveal = matches!(event.kind, EventKind::Reveal { .. });
        let moved = matches!(event.kind, EventKind::Move { .. } | EventKind::Place { .. });
        if !reveal && !moved {
            if matches!(event.kind, EventKind::Board { .. }) {
                return Vec::new();
            }
            continue;
        }
        seq += 1;
        let before = referee.fen();
        let rulings = referee.apply(seq, event);
        let clean = !rulings.iter().any(|r| {
            matches!(
                r.kind,
                RulingKind::IllegalMove | RulingKind::InvalidEvent | RulingKind::Foul
            )
        }) && referee.fen() != before;
        if !clean {
            break;
        }
        let plain = Event {
            ts_ms: None,
            ..event.clone()
        };
        match (reveal, plies.last_mut()) {
            (true, Some(last)) => last.push(plain),
            (true, None) => break,
            (false, _) => plies.push(vec![plain]),
        }
        if referee.ending().is_some() {
            break;
        }
    }
    plies
}

/// The 500 CCPD master games (a copy of ../shared/data/xiangqi/ccpd/manifest.json,
/// attribution in tests/data/README.md).
fn ccpd() -> Vec<Source> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xiangqi/ccpd/manifest.json");
    let text = std::fs::read_to_string(&path).expect("CCPD manifest");
    let list: Vec<Value> = serde_json::from_str(&text).expect("manifest is JSON");
    list.iter()
        .map(|v| {
            let id = v["id"].as_str().unwrap_or_default().to_string();
            let header = Header::new(Variant::Xiangqi, id.clone());
            let sides = [Side::First, Side::Second].into_iter().cycle();
            let events: Vec<Event> = v["moves_iccs"]
                .as_str()
                .unwrap_or_default()
                .split_whitespace()
                .zip(sides)
                .map(|(m, side)| {
                    let sq = |t: &str| Square::parse_text(Variant::Xiangqi, t).expect("square");
                    Event {
                        side,
                        ts_ms: None,
                        kind: EventKind::Move {
                            from: sq(&m[..2]),
                            to: sq(&m[2..]),
                            promotion: None,
                            captures: None,
                        },
                    }
                })
                .collect();
            Source {
                name: format!("ccpd/{id}"),
                plies: recorded_plies(&header, &events),
                header,
            }
        })
        .collect()
}

/// What a board shows of the referee's position.
fn shown(referee: &Referee) -> Placement {
    let fen = referee.fen();
    let variant = referee.header().variant;
    let board = match variant {
        Variant::Draughts => fen.split_once(':').map_or("", |(_, l)| l).to_string(),
        _ => fen.split_whitespace().next().unwrap_or("").to_string(),
    };
    sensor::read(variant, &board).expect("a position reads as a placement")
}

/// A small deterministic generator (xorshift64*): the same streams on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// True with probability `percent` %.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty())
            .then(|| items[usize::try_from(self.next() % items.len() as u64).expect("index")])
    }
}

/// How much of each noise a stream gets, in percent per ply.
#[derive(Clone, Copy, Debug, Default)]
pub struct Noise {
    pub reversed_capture: u64,
    pub slide: u64,
    pub flicker: u64,
    pub lost: u64,
    pub lift_return: u64,
    pub knocked: u64,
    pub turned: bool,
    pub signal: bool,
}

/// The faults injected into a stream, by kind.
pub type Faults = BTreeMap<&'static str, u64>;

/// A board's stream for `source`: the header's log, its reports and clock presses.
pub struct Stream {
    pub header: Header,
    pub events: Vec<Event>,
    /// The recorded events the board has physically completed at each event.
    pub done_at: Vec<usize>,
    pub faults: Faults,
}

struct Writer {
    variant: Variant,
    events: Vec<Event>,
    ts: u64,
    turned: bool,
    /// The recorded events (moves and reveals) the board has physically completed, and that
    /// count at each event written: what an arbiter who walks over sets after a mismatch.
    done: usize,
    done_at: Vec<usize>,
}

impl Writer {
    fn report(&mut self, placement: &Placement, after_ms: u64) {
        self.ts += after_ms;
        let p = if self.turned {
            placement.turned()
        } else {
            placement.clone()
        };
        self.events.push(Event {
            side: Side::Board,
            ts_ms: Some(self.ts),
            kind: EventKind::Board {
                placement: sensor::write(self.variant, &p),
                device: Some("sim-1".into()),
            },
        });
        self.done_at.push(self.done);
    }

    fn press(&mut self, side: Side, after_ms: u64) {
        self.ts += after_ms;
        self.events.push(Event {
            side,
            ts_ms: Some(self.ts),
            kind: EventKind::Clock {
                first_ms: None,
                second_ms: None,
            },
        });
        self.done_at.push(self.done);
    }
}

fn owner(variant: Variant, letter: u8) -> Option<Side> {
    let first = match variant {
        Variant::Draughts => matches!(letter, b'w' | b'W'),
        Variant::Renju => letter == b'x',
        Variant::ChessGjq | Variant::Xiangqi => letter.is_ascii_uppercase(),
    };
    Some(if first { Side::First } else { Side::Second })
}

/// Writes the stream of `source` with `noise`; `clocked`: commit by clock presses, else by
/// pauses longer than the hold time.
pub fn stream(source: &Source, noise: Noise, clocked: bool, rng: &mut Rng) -> Stream {
    let variant = source.header.variant;
    let mut referee = Referee::new(&source.header).expect("referee");
    // A renju board is the same turned round: nothing tells how it was set up.
    let noise = Noise {
        turned: noise.turned && variant != Variant::Renju,
        ..noise
    };
    let mut w = Writer {
        variant,
        events: Vec::new(),
        ts: 0,
        turned: noise.turned,
        done: 0,
        done_at: Vec::new(),
    };
    let mut faults = Faults::new();
    if noise.turned {
        *faults.entry("turned board").or_default() += 1;
    }
    let start = shown(&referee);
    w.report(&start, 0);
    let mut seq = 0;
    let mut lost_run = 0;
    let last = source.plies.len().saturating_sub(1);
    for (i, ply) in source.plies.iter().enumerate() {
        let before = shown(&referee);
        let side = ply[0].side;
        for e in ply {
            seq += 1;
            referee.apply(seq, e);
        }
        let after = shown(&referee);
        let changed: Vec<usize> = (0..before.cells().len())
            .filter(|&c| before.cells()[c] != after.cells()[c])
            .collect();
        // One or two plies of lost reports (never the last: something must show them).
        if i < last && lost_run < 2 && rng.chance(noise.lost) {
            lost_run += 1;
            w.done += ply.len();
            *faults.entry("lost ply").or_default() += 1;
            if clocked {
                w.press(side, 900);
            }
            continue;
        }
        lost_run = 0;
        let mine = |c: &Option<u8>| c.and_then(|l| owner(variant, l)) == Some(side);
        let theirs = |c: &Option<u8>| c.is_some_and(|l| owner(variant, l) != Some(side));
        // A piece of the mover lifted and put back first (a touch for the arbiter).
        let others: Vec<usize> = (0..before.cells().len())
            .filter(|c| !changed.contains(c) && mine(&before.cells()[*c]))
            .collect();
        if variant != Variant::Renju
            && rng.chance(noise.lift_return)
            && let Some(c) = rng.pick(&others)
        {
            let mut lifted = before.clone();
            lifted.set(c, None);
            w.report(&lifted, 400);
            w.report(&before, 600);
            *faults.entry("lift and return").or_default() += 1;
        }
        let vacated: Vec<usize> = changed
            .iter()
            .copied()
            .filter(|&c| mine(&before.cells()[c]))
            .collect();
        let mut taken: Vec<usize> = changed
            .iter()
            .copied()
            .filter(|&c| theirs(&before.cells()[c]))
            .collect();
        // Taken pieces vanish one at a time, in any order.
        if taken.len() > 1 && rng.chance(50) {
            taken.reverse();
        }
        let mut cur = before.clone();
        let reversed = !taken.is_empty() && rng.chance(noise.reversed_capture);
        if reversed {
            *faults.entry("capture in reverse order").or_default() += 1;
            for &c in &taken {
                cur.set(c, None);
                w.report(&cur, 250);
            }
        }
        let moving = vacated.first().and_then(|&c| before.cells()[c]);
        for &c in &vacated {
            cur.set(c, None);
            w.report(&cur, 250);
        }
        if let Some(letter) = moving
            && rng.chance(noise.slide)
        {
            let empty: Vec<usize> = (0..cur.cells().len())
                .filter(|c| cur.cells()[*c].is_none() && !changed.contains(c))
                .collect();
            for _ in 0..2 {
                if let Some(e) = rng.pick(&empty) {
                    let mut slid = cur.clone();
                    slid.set(e, Some(letter));
                    w.report(&slid, 120);
                    *faults.entry("slide").or_default() += 1;
                }
            }
        }
        if !reversed {
            for &c in &taken {
                cur.set(c, None);
                w.report(&cur, 250);
            }
        }
        // A chess_gjq piece put down face down, then turned up.
        let face_down: Vec<usize> = changed
            .iter()
            .copied()
            .filter(|&c| {
                variant == Variant::ChessGjq
                    && before.cells()[c].is_none_or(|l| l != b'X' && l != b'x')
                    && after.cells()[c].is_some_and(|l| l != b'X' && l != b'x')
                    && vacated
                        .iter()
                        .any(|&v| matches!(before.cells()[v], Some(b'X' | b'x')))
            })
            .collect();
        if !face_down.is_empty() {
            let mut down = after.clone();
            for &c in &face_down {
                let l = after.cells()[c].expect("piece");
                down.set(c, Some(if l.is_ascii_uppercase() { b'X' } else { b'x' }));
            }
            w.report(&down, 300);
        }
        // A promoted pawn stands on its square before the piece it became replaces it (a
        // chess_gjq piece turned up a pawn on the last rank: 4.1.2.6.2 (3)).
        let promoted: Vec<usize> = ply
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::Move {
                    to,
                    promotion: Some(_),
                    ..
                }
                | EventKind::Reveal {
                    square: to,
                    promotion: Some(_),
                    ..
                } => match to {
                    Square::ChessGjq(sq) => {
                        Some(usize::from(7 - sq.rank()) * 8 + usize::from(sq.file()))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        if !promoted.is_empty() {
            let mut pawn = after.clone();
            for &c in &promoted {
                let white = after.cells()[c].is_some_and(|l| l.is_ascii_uppercase());
                pawn.set(c, Some(if white { b'P' } else { b'p' }));
            }
            w.report(&pawn, 400);
        }
        w.done += ply.len();
        w.report(&after, 300);
        if rng.chance(noise.flicker) {
            let occupied: Vec<usize> = (0..after.cells().len())
                .filter(|c| after.cells()[*c].is_some() && !changed.contains(c))
                .collect();
            if let Some(f) = rng.pick(&occupied) {
                let mut flick = after.clone();
                flick.set(f, None);
                w.report(&flick, 60);
                w.report(&after, 90);
                *faults.entry("flicker").or_default() += 1;
            }
        }
        let knocked = if rng.chance(noise.knocked) {
            let pieces: Vec<usize> = (0..after.cells().len())
                .filter(|c| after.cells()[*c].is_some() && !changed.contains(c))
                .collect();
            let empty: Vec<usize> = (0..after.cells().len())
                .filter(|c| after.cells()[*c].is_none() && !changed.contains(c))
                .collect();
            match (rng.pick(&pieces), rng.pick(&empty)) {
                (Some(k), Some(e)) => {
                    let mut bumped = after.clone();
                    bumped.set(e, after.cells()[k]);
                    bumped.set(k, None);
                    w.report(&bumped, 200);
                    *faults.entry("knocked piece").or_default() += 1;
                    true
                }
                _ => false,
            }
        } else {
            false
        };
        if clocked {
            w.press(side, 300);
        } else {
            // The mover's pause: longer than the hold time.
            w.ts += 1400;
        }
        if knocked {
            // Put right: most often at once (within the hold time: no incident), else after
            // the players notice.
            let soon = rng.chance(60);
            w.report(&after, if soon { 400 } else { 2600 });
            if !clocked {
                w.ts += 1400;
            }
        }
    }
    if noise.signal && variant == Variant::ChessGjq && referee.ending().is_none() {
        let mut signal = shown(&referee);
        let kings: Vec<usize> = (0..64)
            .filter(|&c| matches!(signal.cells()[c], Some(b'K' | b'k')))
            .collect();
        for c in kings {
            signal.set(c, None);
        }
        signal.set(36, Some(b'K'));
        signal.set(27, Some(b'k'));
        w.report(&signal, 1500);
        *faults.entry("result signal").or_default() += 1;
    }
    // The last placement stands: a repeat of it after the hold time commits it.
    let end = w.events.iter().rev().find_map(|e| match &e.kind {
        EventKind::Board { placement, .. } => Some(placement.clone()),
        _ => None,
    });
    if let Some(placement) = end {
        w.ts += 1500;
        w.events.push(Event {
            side: Side::Board,
            ts_ms: Some(w.ts),
            kind: EventKind::Board {
                placement,
                device: Some("sim-1".into()),
            },
        });
        w.done_at.push(w.done);
    }
    Stream {
        header: source.header.clone(),
        done_at: w.done_at,
        events: w.events,
        faults,
    }
}

/// A move as the comparison sees it: side, kind and squares (captures as a set, where the
/// record gives them: a draughts record may leave them out where the route is plain).
fn same(derived: &Event, recorded: &Event) -> bool {
    match (&derived.kind, &recorded.kind) {
        (
            EventKind::Move {
                from: f1,
                to: t1,
                promotion: p1,
                captures: c1,
            },
            EventKind::Move {
                from: f2,
                to: t2,
                promotion: p2,
                captures: c2,
            },
        ) => {
            let set = |c: &Option<Vec<Square>>| {
                let mut v: Vec<String> = c.iter().flatten().map(ToString::to_string).collect();
                v.sort();
                v
            };
            derived.side == recorded.side
                && (f1, t1, p1) == (f2, t2, p2)
                && (c2.is_none() || set(c1) == set(c2))
        }
        _ => key(derived) == key(recorded),
    }
}

fn key(e: &Event) -> String {
    match &e.kind {
        EventKind::Move {
            from,
            to,
            promotion,
            captures,
        } => {
            let mut c: Vec<String> = captures.iter().flatten().map(ToString::to_string).collect();
            c.sort();
            format!("{:?} {from}-{to} {promotion:?} {}", e.side, c.join(","))
        }
        EventKind::Place { to } => format!("{:?} {to}", e.side),
        EventKind::Reveal { square, piece, .. } => format!("{:?} {square}={piece}", e.side),
        other => format!("{other:?}"),
    }
}

/// What a stream's replay derived, against the recorded moves.
#[derive(Default, Debug)]
pub struct Tally {
    pub streams: u64,
    pub moves: u64,
    pub derived: u64,
    pub wrong_silent: u64,
    pub wrong_with_incident: u64,
    pub incidents: u64,
    /// Mismatches because the board cannot tell two readings apart (a chess_gjq piece turned
    /// up on the last rank whose reports were lost: the piece, or a pawn promoted to it).
    pub ambiguous: u64,
    pub touches: u64,
    pub signals: u64,
    pub faults: Faults,
    pub failures: Vec<String>,
    pub stalls: Vec<String>,
    /// Moves the simulated arbiter set after a mismatch.
    pub by_arbiter: u64,
    /// Readings with moves other than the record's that leave the game where the board is.
    pub resynced: u64,
    pub wrong_noted: Vec<String>,
    pub other_incidents: Vec<String>,
}

impl Tally {
    /// Replays `stream`, checking each derived move against the record. With `arbiter`, a
    /// mismatch that stands for [`ARBITER_MS`] brings the arbiter, who sets the moves the
    /// board shows were made (those count as not derived).
    fn add(&mut self, source: &Source, stream: &Stream, arbiter: bool) {
        let expected: Vec<&Event> = source.plies.iter().flatten().collect();
        let variant = stream.header.variant;
        let mut referee = Referee::new(&stream.header).expect("referee");
        let (mut seq, mut done, mut derived, mut set) = (0u64, 0usize, 0u64, 0u64);
        let mut wrong: Option<(u64, String, String)> = None;
        let mut incidents: Vec<u64> = Vec::new();
        let mut standing_since: Option<u64> = None;
        // The seq of the last move derived as recorded: an incident after it covers a wrong
        // move that follows (the arbiter is looking at that stretch of the game).
        let mut last_ok = 0u64;
        // What the board shows after each number of recorded events.
        let truth = truths(source, &stream.header);
        for (i, e) in stream.events.iter().enumerate() {
            seq += 1;
            let standing = referee.board_watch().is_some_and(|w| w.mismatch.is_some());
            let mut off: Option<(String, String)> = None;
            for r in referee.apply(seq, e) {
                match r.kind {
                    RulingKind::BoardMove if wrong.is_none() && off.is_none() => {
                        let d = r.event.as_deref().expect("derived event");
                        if expected.get(done).is_some_and(|x| same(d, x)) {
                            done += 1;
                            derived += 1;
                            last_ok = seq;
                        } else {
                            let wanted = expected.get(done).map_or("nothing".into(), |x| key(x));
                            off = Some((key(d), wanted));
                        }
                    }
                    RulingKind::BoardMismatch => {
                        incidents.push(seq);
                        if r.text.contains("more than one sequence") {
                            self.ambiguous += 1;
                        } else if self.other_incidents.len() < 20 {
                            self.other_incidents
                                .push(format!("{}: {}", source.name, r.text));
                        }
                    }
                    RulingKind::BoardTouch => self.touches += 1,
                    RulingKind::BoardResultSignal => self.signals += 1,
                    RulingKind::IllegalMove | RulingKind::InvalidEvent => incidents.push(seq),
                    _ => {}
                }
            }
            if let Some((got, wanted)) = off {
                // Moves other than the record's that leave the game where the board
                // physically is (plies lost inside a repetition cycle) are no wrong
                // position; the record's moves in between count as not derived.
                let now = stream.done_at[i].min(expected.len());
                if truth.get(now) == Some(&shown(&referee)) && now >= done {
                    self.resynced += 1;
                    done = now;
                    last_ok = seq;
                } else {
                    // A reading that clears a standing mismatch says so: the arbiter is
                    // already looking.
                    if standing {
                        incidents.push(seq);
                    }
                    wrong = Some((seq, got, wanted));
                }
            }
            let standing = referee.board_watch().is_some_and(|w| w.mismatch.is_some());
            if !arbiter || !standing || wrong.is_some() {
                standing_since = None;
                continue;
            }
            let now = e.ts_ms.unwrap_or(0);
            if now.saturating_sub(*standing_since.get_or_insert(now)) < ARBITER_MS {
                continue;
            }
            standing_since = None;
            let target = stream.done_at[i].min(expected.len());
            if target > done {
                seq += 1;
                let word = arbiter_set(&expected[done..target], e.ts_ms);
                for r in referee.apply(seq, &word) {
                    if matches!(r.kind, RulingKind::IllegalMove | RulingKind::InvalidEvent) {
                        self.failures.push(format!(
                            "{}: the arbiter's set at {seq} gave {}",
                            source.name,
                            r.to_json(variant)
                        ));
                    }
                }
                set += (target - done) as u64;
                done = target;
            }
        }
        // The arbiter comes to a mismatch that still stands when the stream ends.
        let standing = referee.board_watch().is_some_and(|w| w.mismatch.is_some());
        let target = stream
            .done_at
            .last()
            .copied()
            .unwrap_or(0)
            .min(expected.len());
        if arbiter && standing && wrong.is_none() && target > done {
            seq += 1;
            let word = arbiter_set(&expected[done..target], None);
            referee.apply(seq, &word);
            set += (target - done) as u64;
            done = target;
        }
        self.streams += 1;
        self.moves += expected.len() as u64;
        self.derived += derived;
        self.by_arbiter += set;
        self.incidents += incidents.len() as u64;
        for (kind, n) in &stream.faults {
            *self.faults.entry(kind).or_default() += n;
        }
        if let Some((at, got, wanted)) = wrong {
            if incidents.iter().any(|&i| i > last_ok || i >= at) {
                self.wrong_with_incident += 1;
                if self.wrong_noted.len() < 40 {
                    let held = !stream
                        .events
                        .iter()
                        .any(|e| matches!(e.kind, EventKind::Clock { .. }));
                    let ruling = referee
                        .rulings()
                        .iter()
                        .find(|r| r.at == at && r.kind == RulingKind::BoardMove)
                        .map(|r| r.text.chars().take(160).collect::<String>())
                        .unwrap_or_default();
                    self.wrong_noted.push(format!(
                        "{} ({}): derived {got} at event {at}, recorded {wanted}: {ruling}",
                        source.name,
                        if held { "clockless" } else { "clocked" }
                    ));
                }
            } else {
                self.wrong_silent += 1;
                self.failures.push(format!(
                    "{}: move {} derived {got} at event {at}, recorded {wanted}, and no \
                     incident followed",
                    source.name,
                    done + 1
                ));
            }
        } else if done < expected.len() {
            let last = incidents.last().map(|&i| {
                let r = referee
                    .rulings()
                    .iter()
                    .find(|r| r.at == i && r.kind == RulingKind::BoardMismatch);
                format!(
                    "incident at {i}: {}",
                    r.map(|r| r.text.clone()).unwrap_or_default()
                )
            });
            self.stalls.push(format!(
                "{}: {} of {} moves derived or set, then nothing ({})",
                source.name,
                done,
                expected.len(),
                last.unwrap_or_else(|| "no incident".into())
            ));
        }
    }
}

/// The arbiter's `set` of `moves` (from the scoresheets), as the simulated arbiter enters it.
fn arbiter_set(moves: &[&Event], ts_ms: Option<u64>) -> Event {
    Event {
        side: Side::Arbiter,
        ts_ms,
        kind: EventKind::Arbiter {
            decision: referee::event::Decision::Set,
            ruling: None,
            result: None,
            text: Some("the moves made, from the scoresheets".into()),
            moves: moves.iter().map(|e| (*e).clone()).collect(),
        },
    }
}

/// The placement after each number of the source's recorded events (0: the start).
fn truths(source: &Source, header: &Header) -> Vec<Placement> {
    let mut referee = Referee::new(header).expect("referee");
    let mut out = vec![shown(&referee)];
    for (seq, e) in (1..).zip(source.plies.iter().flatten()) {
        referee.apply(seq, e);
        out.push(shown(&referee));
    }
    out
}

/// How long the simulated arbiter takes to come to a board whose mismatch stands.
const ARBITER_MS: u64 = 5000;

#[test]
fn clean_streams_derive_exactly_the_recorded_moves() {
    let sources = sources();
    let mut rng = Rng::new(1);
    let mut tally = Tally::default();
    for source in &sources {
        for clocked in [true, false] {
            let s = stream(source, Noise::default(), clocked, &mut rng);
            tally.add(source, &s, false);
        }
    }
    crate::common::report::say(
        "boards-clean",
        &format!(
            "boards, clean: {} streams of {} games, {} moves, {} derived, {} incidents ({} where \
         the board cannot tell two readings apart)",
            tally.streams,
            sources.len(),
            tally.moves,
            tally.derived,
            tally.incidents,
            tally.ambiguous
        ),
    );
    let missing = tally.moves - tally.derived;
    assert!(
        missing == 0
            && tally.failures.is_empty()
            && tally.other_incidents.is_empty()
            && tally.stalls.is_empty(),
        "{missing} moves not derived, {} incidents; {:#?} {:#?} {:#?}",
        tally.incidents,
        tally.failures.iter().take(10).collect::<Vec<_>>(),
        tally.stalls.iter().take(30).collect::<Vec<_>>(),
        tally.other_incidents
    );
}

#[test]
fn noisy_streams_commit_no_wrong_move_without_an_incident() {
    let sources = sources();
    let mut tally = Tally::default();
    let mut lifts = 0;
    for (i, source) in sources.iter().enumerate() {
        for clocked in [true, false] {
            let mut rng = Rng::new(7 + 2 * i as u64 + u64::from(clocked));
            let noise = Noise {
                reversed_capture: 50,
                slide: 30,
                flicker: 30,
                lost: 2,
                lift_return: 8,
                knocked: 3,
                turned: (i + usize::from(clocked)) % 5 == 0,
                signal: i % 3 == 0,
            };
            let s = stream(source, noise, clocked, &mut rng);
            lifts += s.faults.get("lift and return").copied().unwrap_or(0);
            tally.add(source, &s, true);
        }
    }
    let faults: u64 = tally.faults.values().sum();
    let share = tally.derived as f64 / tally.moves as f64;
    crate::common::report::say(
        "boards-noisy",
        &format!(
            "boards, noisy: {} streams, {} moves, {} derived without the arbiter ({:.3}%), {} wrong \
         moves committed without an incident, {} wrong moves with one, {} moves set by the \
         arbiter after a mismatch, {} readings with other moves to the same position (plies \
         lost in a repetition cycle), {} incidents ({} where the board cannot tell two readings \
         apart), {} touch notices for {} pieces lifted and put back, {} result signals; \
         {faults} faults injected: {:?}",
            tally.streams,
            tally.moves,
            tally.derived,
            share * 100.0,
            tally.wrong_silent,
            tally.wrong_with_incident,
            tally.by_arbiter,
            tally.resynced,
            tally.incidents,
            tally.ambiguous,
            tally.touches,
            lifts,
            tally.signals,
            tally.faults
        ),
    );
    for s in tally.stalls.iter().take(12) {
        eprintln!("stall: {s}");
    }
    for s in &tally.wrong_noted {
        eprintln!("wrong: {s}");
    }
    assert!(faults >= 100_000, "only {faults} faults injected");
    assert_eq!(tally.wrong_silent, 0, "{:#?}", tally.failures);
    assert!(
        share >= 0.995,
        "{:#?}",
        tally.stalls.iter().take(20).collect::<Vec<_>>()
    );
    assert!(
        tally.touches >= lifts * 9 / 10,
        "{} touches for {lifts} lifts",
        tally.touches
    );
}

/// `BOARD_DEBUG=<source name> cargo test boards::debug -- --ignored --nocapture` prints that
/// source's noisy streams with the rulings each event gave.
#[test]
#[ignore = "a debugging aid"]
fn debug() {
    let wanted = std::env::var("BOARD_DEBUG").unwrap_or_default();
    for (i, source) in sources().iter().enumerate() {
        if source.name != wanted {
            continue;
        }
        for clocked in [true, false] {
            let mut rng = Rng::new(7 + 2 * i as u64 + u64::from(clocked));
            let noise = Noise {
                reversed_capture: 50,
                slide: 30,
                flicker: 30,
                lost: 2,
                lift_return: 8,
                knocked: 3,
                turned: (i + usize::from(clocked)) % 5 == 0,
                signal: i % 3 == 0,
            };
            let s = stream(source, noise, clocked, &mut rng);
            let mut tally = Tally::default();
            tally.add(source, &s, true);
            println!("== {} clocked={clocked} {tally:?}", source.name);
            for (i, e) in source.plies.iter().flatten().enumerate() {
                println!("expected {}: {}", i + 1, key(e));
            }
            let mut referee = Referee::new(&s.header).expect("referee");
            for (seq, e) in (1..).zip(&s.events) {
                println!(
                    "{seq}: {}",
                    referee::event::event_to_json(e, s.header.variant)
                );
                for r in referee.apply(seq, e) {
                    println!("   -> {}", r.to_json(s.header.variant));
                }
            }
        }
    }
}
