//! Known-answer positions: black's forbidden points as another program found them, checked
//! against ours. Each data line is `ROWS POINT:KIND ...` (or `-` for none), ROWS as
//! [`Board::from_rows`] reads them, KIND 3 double-three, 4 double-four, 6 overline; `#` lines
//! are comments. The files say where their answers come from in a `# Source:` header;
//! tests/tools/renju-reference.sh made them (mintaka's rusty_renju; the PyPI `renju` package,
//! a port of the Piskvork judge): positions of random games (`mintaka.txt`, `piskvork.txt`)
//! and constructed shapes dense with threes and fours around each other's points
//! (`tricky-*.txt`, tests/tools/renju-reference/tricky.py).
//!
//! Every point must agree, kind included, except where our own detector, run under another
//! program's reading of the rule ([`Reading`]), gives that program's answer on the point:
//! - RIF 9.2: the Piskvork judge treats a straight-four point that makes a five as unusable
//!   for the three, at any depth of the recursion, so it allows some double-threes issue 19
//!   (RIF 9.2; docs/rules/renju.md 8.1) forbids. Mintaka mostly sides with us: it gives our
//!   answer on 28 of the judge's 31 such random-game positions and on 113 of its 221
//!   constructed ones (on 6 more it differs from us for another reason). Its own RIF 9.2
//!   disputes, 3 and 102 positions, all fall among the judge's, and on every point of them
//!   (3 and 129) the judge gives mintaka's answer;
//! - own-line double-four: mintaka counts a three as live through a straight-four point that
//!   is a double-four because the straight four itself is one of the fours (8 random-game
//!   positions, 14 constructed); the strict rule (docs/rules/renju.md 8.2) and the Piskvork
//!   judge (no such dispute) do not.
//!
//! On the constructed shapes mintaka, whose detector follows patterns rather than the full
//! recursion, also differs on points no reading explains (21 positions); each must be a point
//! where the Piskvork judge gives exactly our answer. Anything else fails the test. The counts
//! print with `cargo test --lib known_answers -- --nocapture`; with the data as committed,
//! disputes per file (RIF 9.2, own-line double-four, both, alone against the second program):
//! `mintaka.txt` 3, 8, 0, 0 and `piskvork.txt` 31, 0, 0, 0 (4899 positions each);
//! `tricky-mintaka.txt` 102, 14, 0, 21 and `tricky-piskvork.txt` 221, 0, 0, 0 (2000 each).

use std::collections::BTreeMap;

use super::board::Board;
use super::forbidden::{FoulKind, Reading, forbidden_points, foul_kind_read};
use super::point::Point;

/// The forbidden points of one position, each with its kind's code.
type Answer = BTreeMap<Point, char>;

fn code(kind: FoulKind) -> char {
    match kind {
        FoulKind::DoubleThree => '3',
        FoulKind::DoubleFour => '4',
        FoulKind::Overline => '6',
    }
}

fn ours(board: &Board) -> Answer {
    let points = forbidden_points(board).into_iter();
    points.map(|(p, kind)| (p, code(kind))).collect()
}

fn parse_answer(text: &str) -> Option<Answer> {
    if text == "-" {
        return Some(Answer::new());
    }
    let entry = |e: &str| {
        let (point, kind) = e.split_once(':')?;
        Some((Point::parse(point)?, kind.chars().next()?))
    };
    text.split_whitespace().map(entry).collect()
}

/// How the known answers compare with ours.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub positions: usize,
    /// Positions explained by RIF 9.2 alone: the other program treats a straight-four point
    /// where black would make five as unusable for the three, at any depth of the recursion.
    /// The Piskvork judge's reading; mintaka gives our answer on most such points and falls
    /// here only on some of the judge's positions (see the module's counts).
    pub rif_9_2: Vec<String>,
    /// Positions explained by the own-line double-four alone: the other program counts a
    /// three as live through a straight-four point that is a double-four only with the
    /// straight four's own line among its fours. Mintaka's reading; the judge has none.
    pub own_line_four: Vec<String>,
    /// Positions that need both readings at once.
    pub both: Vec<String>,
    /// Positions where the program differs from us on a point where the second program
    /// (given to [`tally`]) agrees with us, up to the readings above.
    pub alone: Vec<String>,
    /// Anything else: a bug on one side or the other.
    pub wrong: Vec<String>,
}

/// Compares every data line of `text` with our answers; lines are named `file:line`.
/// `second`: another program's answers for the same positions, which decide a point no
/// known reading explains.
pub(super) fn tally(file: &str, text: &str, second: Option<&str>) -> Tally {
    let second: BTreeMap<&str, Answer> = second
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (rows, answer) = l.split_once(' ')?;
            Some((rows, parse_answer(answer.trim())?))
        })
        .collect();
    let mut tally = Tally::default();
    let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    for (n, line) in lines.filter(|(_, l)| !l.is_empty() && !l.starts_with('#')) {
        tally.positions += 1;
        let named = |why: String| format!("{file}:{n}: {why}");
        let rows = line.split(' ').next().unwrap_or_default();
        match check(line, second.get(rows)) {
            Ok(None) => {}
            Ok(Some((Dispute::Rif92, why))) => tally.rif_9_2.push(named(why)),
            Ok(Some((Dispute::OwnLineFour, why))) => tally.own_line_four.push(named(why)),
            Ok(Some((Dispute::Both, why))) => tally.both.push(named(why)),
            Ok(Some((Dispute::Alone, why))) => tally.alone.push(named(why)),
            Err(why) => tally.wrong.push(named(why)),
        }
    }
    tally
}

fn show(answer: &Answer) -> String {
    let entries: Vec<String> = answer.iter().map(|(p, k)| format!("{p}:{k}")).collect();
    if entries.is_empty() {
        "-".to_string()
    } else {
        entries.join(" ")
    }
}

/// The readings of the rule the references are known to differ from ours by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dispute {
    Rif92,
    OwnLineFour,
    Both,
    /// Not a reading we can name: the second program, fully recursive, sides with us.
    Alone,
}

impl Dispute {
    const READINGS: [Dispute; 3] = [Dispute::Rif92, Dispute::OwnLineFour, Dispute::Both];

    fn reading(self) -> Reading {
        Reading {
            five_counts: self == Dispute::OwnLineFour,
            own_line_double_four_counts: self != Dispute::Rif92,
        }
    }
}

/// The first known reading under which our detector gives the other program's answer on
/// `point`: the difference is that reading, not a bug. Each point is judged again from the
/// rule, not taken on trust.
fn reading_of(board: &Board, point: Point, theirs: Option<&char>) -> Option<Dispute> {
    Dispute::READINGS.into_iter().find(|d| {
        let read = foul_kind_read(board, point, d.reading()).map(code);
        read.as_ref() == theirs
    })
}

/// Why the answers differ on `point`: a known reading, or else the second program giving
/// our answer there.
fn dispute(
    board: &Board,
    point: Point,
    ours: Option<&char>,
    theirs: Option<&char>,
    second: Option<&Answer>,
) -> Option<Dispute> {
    reading_of(board, point, theirs).or_else(|| {
        let other = second?.get(&point);
        (other == ours).then_some(Dispute::Alone)
    })
}

/// `Ok(None)` on agreement, `Ok(Some(..))` on a known dispute, `Err` otherwise.
fn check(line: &str, second: Option<&Answer>) -> Result<Option<(Dispute, String)>, String> {
    let (rows, expected) = line.split_once(' ').ok_or("no answer")?;
    let board = Board::from_rows(rows).map_err(|e| e.to_string())?;
    let theirs = parse_answer(expected.trim()).ok_or("unreadable answer")?;
    let ours = ours(&board);
    if ours == theirs {
        return Ok(None);
    }
    let differ = |p: &Point| ours.get(p) != theirs.get(p);
    let mut points: Vec<Point> = ours
        .keys()
        .chain(theirs.keys())
        .copied()
        .filter(differ)
        .collect();
    points.dedup();
    let why = format!(
        "they say {}, we say {}\n{board}",
        show(&theirs),
        show(&ours)
    );
    let disputes: Option<Vec<Dispute>> = points
        .iter()
        .map(|&p| dispute(&board, p, ours.get(&p), theirs.get(&p), second))
        .collect();
    // A position needing both readings (on different points) counts as `Both`.
    match disputes {
        Some(found) => Ok(found.into_iter().max().map(|d| (d, why))),
        None => Err(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(file: &str) -> String {
        let path = format!("{}/tests/renju/{file}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).expect("known-answer file")
    }

    /// Checks `file`; a point no known reading explains must be one where the program of
    /// `second` (the same positions) gives our answer.
    fn run(file: &str, second: Option<&str>) {
        let second = second.map(read);
        let tally = tally(file, &read(file), second.as_deref());
        let (n, wrong) = (tally.positions, &tally.wrong);
        assert!(
            wrong.is_empty(),
            "{} of {n} positions differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        // Shown with --nocapture: the known disputes, for a reader to check.
        let (rif, own, both) = (&tally.rif_9_2, &tally.own_line_four, &tally.both);
        println!(
            "{file}: {n} positions; disputes: RIF 9.2 {}, own-line double-four {}, both {}, \
             alone against the second program {}",
            rif.len(),
            own.len(),
            both.len(),
            tally.alone.len()
        );
        for why in rif.iter().chain(own).chain(both).chain(&tally.alone) {
            println!("{why}");
        }
    }

    #[test]
    fn mintaka_random_games() {
        run("mintaka.txt", None);
    }

    #[test]
    fn piskvork_random_games() {
        run("piskvork.txt", None);
    }

    #[test]
    fn mintaka_constructed_shapes() {
        run("tricky-mintaka.txt", Some("tricky-piskvork.txt"));
    }

    #[test]
    fn piskvork_constructed_shapes() {
        run("tricky-piskvork.txt", None);
    }
}
