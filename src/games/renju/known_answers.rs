//! Known-answer positions: black's forbidden points as another program found them, checked
//! against ours. Each data line is `ROWS POINT:KIND ...` (or `-` for none), ROWS as
//! [`Board::from_rows`] reads them, KIND 3 double-three, 4 double-four, 6 overline; `#` lines
//! are comments. The files say where their answers come from in a `# Source:` header;
//! tests/tools/renju-reference.sh made them (mintaka's rusty_renju; the PyPI `renju` package,
//! a port of the Piskvork judge).
//!
//! Every point must agree, kind included, except for two known readings of the rule, each
//! checked point by point (not trusted) and printed with `--nocapture`:
//! - [`rif_9_2`]: both programs treat a straight-four point that makes a five as unusable for
//!   the three, so they allow some double-threes issue 19 (RIF 9.2) forbids;
//! - [`own_line_four`]: mintaka counts a three as live through a straight-four point that is a
//!   double-four because the straight four itself is one of the fours; the strict rule and the
//!   Piskvork judge do not.
//!
//! Anything else fails the test.

use std::collections::BTreeMap;

use super::board::Board;
use super::forbidden::{FoulKind, Three, forbidden_points, fours, threes};
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
    /// Positions where the other program missed a double-three whose second live three is
    /// live only through a straight-four point that also makes a five (see [`rif_9_2`]).
    pub rif_9_2: Vec<String>,
    /// Positions where the other program saw a double-three in a three whose straight-four
    /// points are all double-fours through the three's own line (see [`own_line_four`]).
    pub own_line_four: Vec<String>,
    /// Anything else: a bug on one side or the other.
    pub wrong: Vec<String>,
}

/// Compares every data line of `text` with our answers; lines are named `file:line`.
pub(super) fn tally(file: &str, text: &str) -> Tally {
    let mut tally = Tally::default();
    let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim()));
    for (n, line) in lines.filter(|(_, l)| !l.is_empty() && !l.starts_with('#')) {
        tally.positions += 1;
        match check(line) {
            Ok(None) => {}
            Ok(Some((Dispute::Rif92, why))) => tally.rif_9_2.push(format!("{file}:{n}: {why}")),
            Ok(Some((Dispute::OwnLineFour, why))) => {
                tally.own_line_four.push(format!("{file}:{n}: {why}"))
            }
            Err(why) => tally.wrong.push(format!("{file}:{n}: {why}")),
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

/// The two disagreements the references are known to have with the strict rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dispute {
    Rif92,
    OwnLineFour,
}

/// Which known dispute explains the answers differing on `point`, if one does.
fn dispute(
    board: &Board,
    point: Point,
    ours: Option<&char>,
    theirs: Option<&char>,
) -> Option<Dispute> {
    match (ours, theirs) {
        (Some('3'), None) if rif_9_2(board, point) => Some(Dispute::Rif92),
        (None, Some('3')) if own_line_four(board, point) => Some(Dispute::OwnLineFour),
        _ => None,
    }
}

/// `Ok(None)` on agreement, `Ok(Some(..))` on a known dispute, `Err` otherwise.
fn check(line: &str) -> Result<Option<(Dispute, String)>, String> {
    let (rows, expected) = line.split_once(' ').ok_or("no answer")?;
    let board = Board::from_rows(rows).map_err(|e| e.to_string())?;
    let theirs = parse_answer(expected.trim()).ok_or("unreadable answer")?;
    let ours = ours(&board);
    if ours == theirs {
        return Ok(None);
    }
    let differ = |p: &Point| ours.get(p) != theirs.get(p);
    let points: Vec<Point> = ours
        .keys()
        .chain(theirs.keys())
        .copied()
        .filter(differ)
        .collect();
    let why = format!(
        "they say {}, we say {}\n{board}",
        show(&theirs),
        show(&ours)
    );
    let disputes: Option<Vec<Dispute>> = points
        .iter()
        .map(|&p| dispute(&board, p, ours.get(&p), theirs.get(&p)))
        .collect();
    match disputes.as_deref() {
        Some([first, rest @ ..]) if rest.iter().all(|d| d == first) => Ok(Some((*first, why))),
        _ => Err(why),
    }
}

/// True when black's double-three on `point` needs a three whose only playable
/// straight-four points also make a five. RIF 9.2 (and issue 19) count that three as live:
/// the five-making point is not forbidden. Programs that treat such a point as unplayable for
/// the three (it is also a four-point of a double-four) see fewer than two live threes.
fn rif_9_2(board: &Board, point: Point) -> bool {
    let after = board.with_black(point);
    let live_without_five = |t: &Three| {
        let playable = |(e, foul): &(Point, Option<FoulKind>)| {
            foul.is_none() && after.with_black(*e).five(*e).is_none()
        };
        t.four_points.iter().any(playable)
    };
    let all = threes(board, point);
    all.iter().filter(|t| t.is_live()).count() >= 2
        && all.iter().filter(|t| live_without_five(t)).count() < 2
}

/// True when black's `point` makes fewer than two live threes, but two if a three also
/// counted as live through a straight-four point that is a double-four only because the
/// straight four itself is one of its fours. The strict rule (RIF 9.4, issue 19: a three
/// whose straight-four point is a double-four is not live) says the point is allowed; a
/// program that looks for fours at that point only on the other lines forbids it.
fn own_line_four(board: &Board, point: Point) -> bool {
    let after = board.with_black(point);
    let lenient = |t: &Three| {
        let on_own_line = |e: Point| {
            fours(&after, e)
                .iter()
                .any(|l| l.direction == t.line.direction)
        };
        let playable = |(e, foul): &(Point, Option<FoulKind>)| match foul {
            None => true,
            Some(FoulKind::DoubleFour) => on_own_line(*e),
            Some(_) => false,
        };
        t.four_points.iter().any(playable)
    };
    let all = threes(board, point);
    all.iter().filter(|t| t.is_live()).count() < 2 && all.iter().filter(|t| lenient(t)).count() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(file: &str) {
        let path = format!("{}/tests/renju/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("known-answer file");
        let tally = tally(file, &text);
        let (n, wrong) = (tally.positions, &tally.wrong);
        assert!(
            wrong.is_empty(),
            "{} of {n} positions differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
        // Shown with --nocapture: the known disputes, for a reader to check.
        let (rif, own) = (&tally.rif_9_2, &tally.own_line_four);
        println!("{file}: {n} positions; RIF 9.2 disputes: {}", rif.len());
        println!("{file}: own-line double-four disputes: {}", own.len());
        for why in rif.iter().chain(own) {
            println!("{why}");
        }
    }

    #[test]
    fn mintaka_random_games() {
        run("mintaka.txt");
    }

    #[test]
    fn piskvork_random_games() {
        run("piskvork.txt");
    }
}
