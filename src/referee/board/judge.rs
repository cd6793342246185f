//! The referee's side of electronic boards: when a report is read (its commit point), and
//! what each reading gives (log format, "Electronic boards"). A derived move is a
//! `board_move` ruling naming the reports it was read from, and is then judged exactly as
//! the `move` event it names would be at that seq.

use crate::event::{BoardTouch, Decision, Event, EventKind, Side, Square};

use super::super::article::Article;
use super::super::{Referee, Ruling, RulingKind};
use super::search::Ask;
use super::{BoardWatch, Mismatch, Pending, Provisional, Reading, touches};
use crate::games::sensor::Placement;

/// How long after a move read from the board ended the game a report showing the position
/// before it still calls the arbiter.
const TAKE_BACK_MS: u64 = 10_000;

/// The article every board ruling cites: the log format's section on electronic boards.
const BOARDS: Article = Article::LogFormat("electronic boards");

/// Why a placement is read now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Commit {
    /// A clock press by the side to move.
    Press,
    /// The placement stood unchanged for the hold time.
    Held,
    /// An event of another type came.
    Other,
    /// A report, read again because the placement at a clock press (its seq, if it is
    /// still provisional) showed no finished move or a mismatch stands.
    Again(Option<u64>),
    /// The players' result signal: what the board showed before it is read.
    Signal,
}

impl Commit {
    fn words(self, seq: u64) -> String {
        match self {
            Commit::Press => format!("read at the clock press (event {seq})"),
            Commit::Held => format!("read when it had stood for the hold time (event {seq})"),
            Commit::Other => format!("read at the next event of another type (event {seq})"),
            Commit::Again(Some(press)) => format!(
                "read again at the report at event {seq}: at the clock press (event {press}) the \
                 board did not yet show a finished move"
            ),
            Commit::Again(None) => format!("read again at the report at event {seq}"),
            Commit::Signal => format!("read before the result signal (event {seq})"),
        }
    }
}

impl Referee {
    /// The board watch, created at the game's first board report.
    fn watch(&mut self) -> &mut BoardWatch {
        let rules = &self.header.rules;
        let (hold, enforce) = (
            rules.board_hold_ms,
            rules.board_touch == Some(BoardTouch::Enforce),
        );
        let table_rules = self.table.board_rules();
        self.board
            .get_or_insert_with(|| Box::new(BoardWatch::new(table_rules, hold, enforce)))
    }

    /// A `board` report: committed, if an earlier one held long enough, and kept until its
    /// own commit point.
    pub(in crate::referee) fn board_report(
        &mut self,
        seq: u64,
        event: &Event,
        placement: &str,
        device: Option<&str>,
    ) -> Vec<Ruling> {
        let ts = event.ts_ms;
        let Ok(read) = (self.watch().rules.read)(placement) else {
            // The event checks refuse a placement the game cannot read.
            return Vec::new();
        };
        let watch = self.watch();
        watch.last = Some(super::LastReport {
            seq,
            ts,
            device: device.map(str::to_string),
            placement: placement.to_string(),
        });
        if self.ending.is_some() {
            return self.taken_back(seq, ts, &read);
        }
        let mut out = Vec::new();
        let watch = self.watch();
        // A placement that stood long enough is read before this report.
        let held = !watch.clocked
            && watch.pending.as_ref().is_some_and(|p| match (p.ts, ts) {
                (Some(then), Some(now)) => now.saturating_sub(then) >= watch.hold_ms,
                _ => false,
            });
        if held {
            out.extend(self.commit(seq, Commit::Held, None));
        }
        out.extend(self.provisional_lapsed(seq, ts));
        if self.ending.is_some() {
            out.extend(self.taken_back(seq, ts, &read));
            return out;
        }
        let here = self.table.board_placement();
        let watch = self.watch();
        watch.orient(&read, &here);
        let shown = watch.oriented(read);
        if (watch.rules.signal)(&shown) {
            // The players have stopped moving: what the board showed before the signal is
            // read first (every ply of it).
            for _ in 0..super::search::MOST_PLIES {
                if self.board.as_ref().is_none_or(|w| w.pending.is_none()) {
                    break;
                }
                out.extend(self.commit(seq, Commit::Signal, None));
            }
            if self.ending.is_some() {
                return out;
            }
            let watch = self.watch();
            let first = !std::mem::replace(&mut watch.signalled, true);
            watch.pending = None;
            if first {
                let text = format!(
                    "the board shows both kings in the centre (event {seq}): the players' \
                     signal of a result, not a move; the arbiter confirms the result with an \
                     arbiter declare"
                );
                let ruling = Ruling::notice(seq, RulingKind::BoardResultSignal, None, BOARDS, text);
                self.record(&mut out, ruling);
            }
            return out;
        }
        watch.signalled = false;
        watch.note_lifts(seq, ts, &shown, &here);
        watch.saw(seq, &shown);
        // A mismatch read at a press is read again at each report: cleared within the hold
        // time (provisional) it was none; one that stands goes when the board comes back (the
        // press that would read it is not repeated).
        let presser = match (&watch.provisional, &watch.mismatch) {
            (Some(p), _) => Some((p.presser, Some(p.seq))),
            (None, Some(m)) if m.presser.is_some() => Some((m.presser, None)),
            _ => None,
        };
        if let Some((presser, pressed_at)) = presser {
            watch.pending = Some(Pending {
                seq,
                ts,
                placement: shown.clone(),
            });
            let seen = self.board.as_ref().map_or(&[][..], |w| &w.seen[..]);
            let ask = Ask {
                displace: false,
                presser,
                ts,
                seen,
            };
            let read = self.table.board_read(&shown, ask);
            if !matches!(read, Reading::Mismatch(_) | Reading::Ambiguous(_)) {
                let watch = self.watch();
                watch.provisional = None;
                watch.pending = None;
                out.extend(self.derive(seq, Commit::Again(pressed_at), read, pressed_at));
            }
            return out;
        }
        watch.pending = Some(Pending {
            seq,
            ts,
            placement: shown,
        });
        out
    }

    /// Before an event of another type: the pending report is read (a clock press is the
    /// moving side's commit point); a `move` or `reveal` entered by hand is the game's next
    /// move instead, and the board is then expected to show it.
    pub(in crate::referee) fn board_before(&mut self, seq: u64, event: &Event) -> Vec<Ruling> {
        let Some(watch) = self.board.as_mut() else {
            return Vec::new();
        };
        if self.ending.is_some() {
            return Vec::new();
        }
        let mut out = Vec::new();
        match &event.kind {
            EventKind::Move { .. } | EventKind::Place { .. } | EventKind::Reveal { .. } => {
                watch.pending = None;
                watch.lifts.clear();
                watch.since.clear();
                return out;
            }
            EventKind::Arbiter {
                decision: Decision::Set,
                ..
            } => {
                watch.pending = None;
                watch.lifts.clear();
                watch.since.clear();
                watch.provisional = None;
                watch.mismatch = None;
                return out;
            }
            EventKind::Clock { .. } => watch.clocked = true,
            _ => {}
        }
        out.extend(self.provisional_lapsed(seq, event.ts_ms));
        let press = matches!(event.kind, EventKind::Clock { .. });
        let (why, presser) = if press {
            (Commit::Press, Some(event.side))
        } else {
            (Commit::Other, None)
        };
        if self.board.as_ref().is_some_and(|w| w.pending.is_some()) {
            out.extend(self.commit(seq, why, presser));
        }
        out
    }

    /// After a move read from the board ended the game: a report that soon shows the position
    /// before that move again says the move may not have been made (a piece knocked onto a
    /// square it could have moved to, and put back). The game's end stands; the arbiter is
    /// told, once. Reports after the end derive nothing (log format).
    fn taken_back(&mut self, seq: u64, ts: Option<u64>, read: &Placement) -> Vec<Ruling> {
        let last = self.table.board_placement();
        let Some(watch) = self.board.as_mut() else {
            return Vec::new();
        };
        let Some(back) = watch.took_back.take() else {
            return Vec::new();
        };
        let soon = match (back.ts, ts) {
            (Some(then), Some(now)) => now.saturating_sub(then) <= TAKE_BACK_MS,
            _ => true,
        };
        if !soon {
            return Vec::new();
        }
        let shown = watch.oriented(read.clone());
        let shows = watch.rules.shows;
        let differ: Vec<usize> = (0..last.cells().len())
            .filter(|&c| !shows(shown.cells()[c], last.cells()[c]))
            .collect();
        let moved: Vec<usize> = (0..last.cells().len())
            .filter(|&c| back.before.cells()[c] != last.cells()[c])
            .collect();
        // The position before the move again, or the moved piece standing elsewhere: not
        // the players setting up anew (that moves many pieces).
        let again = back.before.is_shown_by_rules(&shown, shows);
        let elsewhere = differ.len() == 2 && differ.iter().any(|c| moved.contains(c));
        if !again && !elsewhere {
            watch.took_back = Some(back);
            return Vec::new();
        }
        let names: Vec<String> = differ.iter().map(|&c| (watch.rules.name)(c)).collect();
        let text = format!(
            "the move read from the board at event {} ended the game, and the board at event \
             {seq} no longer shows it ({} differ): the move may not have been made as read (a \
             piece knocked onto a square it could have moved to). The result stands until the \
             arbiter rules",
            back.at,
            names.join(", ")
        );
        let ruling = Ruling::notice(seq, RulingKind::BoardMismatch, None, BOARDS, text)
            .with_evidence(vec![back.at, seq]);
        let mut out = Vec::new();
        self.record(&mut out, ruling);
        out
    }

    /// The most plies k, fewer than the reading's, after which a report since the last
    /// commit showed the board standing.
    fn seen_before_last(&self, read: &Reading) -> Option<usize> {
        let Reading::Plies(plies, _, steps) = read else {
            return None;
        };
        let watch = self.board.as_ref()?;
        let shows = watch.rules.shows;
        (1..plies.len()).rev().find(|&k| {
            watch
                .seen
                .iter()
                .any(|s| steps[k - 1].is_shown_by_rules(s, shows))
        })
    }

    /// A mismatch read at a press that the board did not clear within the hold time.
    fn provisional_lapsed(&mut self, seq: u64, ts: Option<u64>) -> Vec<Ruling> {
        let Some(watch) = self.board.as_mut() else {
            return Vec::new();
        };
        let lapsed = watch
            .provisional
            .as_ref()
            .is_some_and(|p| match (p.ts, ts) {
                (Some(then), Some(now)) => now.saturating_sub(then) > watch.hold_ms,
                _ => true,
            });
        if !lapsed {
            return Vec::new();
        }
        let p = watch.provisional.take().expect("lapsed");
        let ruling = self.raise_mismatch(p.seq, p.what, p.evidence, Some(seq), p.presser);
        let mut out = Vec::new();
        self.record(&mut out, ruling);
        out
    }

    /// Reads the pending report at commit point `seq`.
    fn commit(&mut self, seq: u64, why: Commit, presser: Option<Side>) -> Vec<Ruling> {
        let Some(pending) = self.board.as_mut().and_then(|w| w.pending.take()) else {
            return Vec::new();
        };
        let displace = self.board.as_ref().is_some_and(|w| w.mismatch.is_none());
        let seen = self.board.as_ref().map_or(&[][..], |w| &w.seen[..]);
        let ask = Ask {
            displace,
            presser: presser.and_then(player_of),
            ts: pending.ts,
            seen,
        };
        let mut read = self.table.board_read(&pending.placement, ask);
        if why != Commit::Press
            && let Some(k) = self.seen_before_last(&read)
        {
            // The board was seen standing after the first k plies: their reports were not
            // lost, so only they are read now; the rest waits for its own commit point (a
            // piece knocked onto a square the opponent could have moved to is no move).
            let Reading::Plies(plies, _, steps) = read else {
                unreachable!("seen_before_last reads plies")
            };
            let here = self.table.board_placement();
            let there = steps[k - 1].clone();
            let changed = (0..here.cells().len())
                .filter(|&c| here.cells()[c] != there.cells()[c])
                .collect();
            read = Reading::Plies(plies[..k].to_vec(), changed, steps[..k].to_vec());
            if let Some(watch) = self.board.as_mut() {
                watch.pending = Some(pending.clone());
            }
        }
        if let Reading::Mismatch(_) | Reading::Ambiguous(_) = &read {
            let what = unexplained(seq, &read);
            let watch = self.board.as_mut().expect("watched");
            let evidence = watch.take_evidence();
            watch.lifts.clear();
            if watch.mismatch.is_some() {
                return Vec::new();
            }
            if why == Commit::Press {
                watch.provisional = Some(Provisional {
                    seq,
                    ts: pending.ts,
                    what,
                    evidence,
                    presser: presser.and_then(player_of),
                });
                return Vec::new();
            }
            let ruling = self.raise_mismatch(seq, what, evidence, None, None);
            let mut out = Vec::new();
            self.record(&mut out, ruling);
            return out;
        }
        self.derive(seq, why, read, None)
    }

    fn raise_mismatch(
        &mut self,
        seq: u64,
        what: String,
        mut evidence: Vec<u64>,
        raised_at: Option<u64>,
        presser: Option<crate::games::Player>,
    ) -> Ruling {
        let at = raised_at.unwrap_or(seq);
        let watch = self.board.as_mut().expect("watched");
        watch.mismatch = Some(Mismatch {
            seq: at,
            what: what.clone(),
            presser,
        });
        let later = raised_at
            .map(|r| {
                format!(
                    " (read at the clock press; the board had not come back within the hold \
                     time, by event {r})"
                )
            })
            .unwrap_or_default();
        let text = format!(
            "{what}{later}. Nothing is derived until the board shows the game's position or a \
             position legal moves ahead, or the arbiter sets the moves made"
        );
        evidence.push(at);
        evidence.sort_unstable();
        evidence.dedup();
        Ruling::notice(at, RulingKind::BoardMismatch, None, BOARDS, text).with_evidence(evidence)
    }

    /// What a reading that explains the placement gives: touch notices, then each ply as a
    /// `board_move` followed by its judgment.
    fn derive(
        &mut self,
        seq: u64,
        why: Commit,
        read: Reading,
        pressed_at: Option<u64>,
    ) -> Vec<Ruling> {
        let variant = self.header.variant;
        let mover = self.side_to_move();
        let watch = self.board.as_mut().expect("watched");
        let mut evidence = watch.take_evidence();
        evidence.extend(pressed_at);
        evidence.sort_unstable();
        evidence.dedup();
        let lifts = std::mem::take(&mut watch.lifts);
        let cleared = watch.mismatch.take();
        // The cells the plies changed are the move itself, not touches.
        let (plies, moved, displaced) = match read {
            Reading::Same => (Vec::new(), Vec::new(), false),
            Reading::Plies(plies, moved, _) => (plies, moved, false),
            Reading::Displacement(event, moved) => (vec![vec![event]], moved, true),
            Reading::Mismatch(_) | Reading::Ambiguous(_) => return Vec::new(),
        };
        let mut out = Vec::new();
        let touched = touches(&lifts, &moved);
        let enforce = self.board.as_ref().is_some_and(|w| w.enforce);
        for lift in &touched {
            let notice = self.touch_notice(seq, mover, lift, plies.is_empty());
            self.record(&mut out, notice);
            if enforce {
                let touch = Event {
                    side: mover,
                    ts_ms: lift.ts,
                    kind: EventKind::Touch {
                        square: self.board_square(lift.cell),
                        adjust: false,
                    },
                };
                out.extend(self.apply_event(seq, &touch));
            }
        }
        let turned_note = {
            let watch = self.board.as_mut().expect("watched");
            let note = watch.turned == Some(true) && !watch.told_turned && !plies.is_empty();
            if note {
                watch.told_turned = true;
            }
            note
        };
        for (i, ply) in plies.iter().enumerate() {
            if self.ending.is_some() {
                break;
            }
            let Some(first) = ply.first() else { continue };
            let words: Vec<String> = ply
                .iter()
                .map(|e| self.describe(e).unwrap_or_else(|| plain_move(e)))
                .collect();
            let side = first.side.name(variant);
            let mut text = format!(
                "{side} {}: {} from the board's reports {}, {}",
                match first.kind {
                    EventKind::Reveal { .. } => "turned the piece it moved face up",
                    _ if displaced => "carried a piece",
                    _ => "moved",
                },
                words.join(" "),
                list(&evidence),
                why.words(seq)
            );
            if plies.len() > 1 {
                text.push_str(&format!(
                    "; ply {} of {} read at once (the reports in between were lost)",
                    i + 1,
                    plies.len()
                ));
            }
            if displaced {
                text.push_str(
                    "; one piece carried where the rules do not allow it: judged as that move",
                );
            }
            if let (0, Some(m)) = (i, &cleared) {
                text.push_str(&format!(
                    "; this reading clears the board mismatch standing since event {}: the \
                     arbiter may check that these are the moves made",
                    m.seq
                ));
            }
            if i == 0 && turned_note {
                text.push_str(
                    "; the board was set up turned round (its first report showed the start \
                     position by 180 degrees) and is read turned for the whole game",
                );
            }
            let before = self.table.board_placement();
            let ended_before = self.ending.is_some();
            for event in ply {
                let mut ruling = Ruling::notice(
                    seq,
                    RulingKind::BoardMove,
                    Some(event.side),
                    BOARDS,
                    text.clone(),
                )
                .with_evidence(evidence.clone());
                if matches!(event.kind, EventKind::Reveal { .. }) && ply.len() > 1 {
                    ruling.text = format!(
                        "{side} turned the piece on its new square face up: {}",
                        words.last().cloned().unwrap_or_default()
                    );
                }
                ruling.event = Some(Box::new(event.clone()));
                self.record(&mut out, ruling);
                self.note_made(event);
                out.extend(self.apply_event(seq, event));
            }
            if !ended_before && self.ending.is_some() {
                let watch = self.board.as_mut().expect("watched");
                watch.took_back = Some(super::TakeBack {
                    before,
                    at: seq,
                    ts: first.ts_ms,
                });
            }
        }
        out
    }

    /// A `board_touch`: the piece `lift` shows lifted, put back or followed by another move.
    fn touch_notice(&self, seq: u64, mover: Side, lift: &super::Lift, no_move: bool) -> Ruling {
        let variant = self.header.variant;
        let square = self.board_square(lift.cell);
        let back = match lift.back {
            Some((back, _)) => format!(" and back at event {back}"),
            None => String::new(),
        };
        let then = if no_move {
            "and no move was made"
        } else {
            "before another piece was moved"
        };
        let rule = match self.table.policy().touch {
            Some(t) => format!(" ({} touch-move)", t.article),
            None => String::new(),
        };
        let text = format!(
            "the board showed {}'s piece on {square} lifted at event {}{back}, {then}; a \
             board cannot hear an announced adjustment: the arbiter may rule a foul or a \
             warning{rule}",
            mover.name(variant),
            lift.seq
        );
        let mut evidence = vec![lift.seq, seq];
        evidence.extend(lift.back.map(|(b, _)| b));
        evidence.sort_unstable();
        evidence.dedup();
        Ruling::notice(seq, RulingKind::BoardTouch, Some(mover), BOARDS, text)
            .with_evidence(evidence)
    }

    /// A board ruling: among the game's rulings, in order, and among this event's.
    fn record(&mut self, out: &mut Vec<Ruling>, ruling: Ruling) {
        self.rulings.push(ruling.clone());
        out.push(ruling);
    }

    /// The event square of a placement cell.
    fn board_square(&self, cell: usize) -> Square {
        self.table.board_square(cell)
    }

    /// The board's last report and what stands of it, for the console.
    pub fn board_watch(&self) -> Option<&BoardWatch> {
        self.board.as_deref()
    }

    /// What a standing board mismatch leaves open, in words.
    pub(in crate::referee) fn board_open(&self) -> Option<String> {
        let watch = self.board.as_ref()?;
        let m = watch.mismatch.as_ref()?;
        Some(format!(
            "board mismatch since event {}: {}. Nothing is derived until the board shows the \
             game's position or a position legal moves ahead, or the arbiter sets the moves \
             made",
            m.seq, m.what
        ))
    }
}

/// Why a placement read at `seq` explains nothing, in words.
fn unexplained(seq: u64, read: &Reading) -> String {
    match read {
        Reading::Ambiguous(ways) => format!(
            "the board's placement at event {seq} is reached from the game's position by more \
             than one sequence of legal moves, which the board cannot tell apart: {}",
            ways.join("; ")
        ),
        Reading::Mismatch(squares) => format!(
            "the board's placement at event {seq} is neither the game's position nor reached \
             from it by one to three legal moves; it differs on {}",
            squares.join(", ")
        ),
        Reading::Same | Reading::Plies(..) | Reading::Displacement(..) => String::new(),
    }
}

/// The player a side is, if it is one.
fn player_of(side: Side) -> Option<crate::games::Player> {
    match side {
        Side::First => Some(crate::games::Player::First),
        Side::Second => Some(crate::games::Player::Second),
        Side::Arbiter | Side::Board => None,
    }
}

/// A derived event the game's notation cannot write (an illegal move): its squares, as the
/// game's rulings write a move.
fn plain_move(event: &Event) -> String {
    match &event.kind {
        EventKind::Move {
            from, to, captures, ..
        } => {
            let capture = captures.as_ref().is_some_and(|c| !c.is_empty());
            super::super::move_text(*from, *to, capture)
        }
        EventKind::Place { to } => to.to_string(),
        EventKind::Reveal { square, piece, .. } => format!("{square}={piece}"),
        _ => event.kind.type_name().to_string(),
    }
}

fn list(seqs: &[u64]) -> String {
    let names: Vec<String> = seqs.iter().map(u64::to_string).collect();
    match names.len() {
        0 => "(none)".into(),
        1 => format!("at event {}", names[0]),
        _ => format!("at events {}", names.join(", ")),
    }
}
