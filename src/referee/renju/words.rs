//! How renju rulings name a shape: the lines, the stones, each three's straight-four points
//! and why they are playable or not, and the article of the shape under the procedure.

use crate::event::ForbiddenRule;
use crate::games::renju::{Board, Direction, Foul, FoulKind, Point, fours, threes};
use crate::referee::Article;

use super::ForbiddenStone;

/// The forbidden stone's shape in words (`board`: the stone on it, nothing after it), e.g. `double-three: three f8 g8 h8 (horizontal),
/// live: a straight four at e8 or i8; ...`, the four beside a double-three (四三三), then
/// when the shape's stones were placed.
pub fn describe_shape(f: &ForbiddenStone, board: &Board, placed: &[Option<u64>]) -> String {
    let beside = match &f.foul {
        Foul::DoubleThree(_) => {
            let fours: Vec<String> = fours(&board.lifted(f.point), f.point)
                .iter()
                .map(|l| format!("four {l}"))
                .collect();
            match fours.as_slice() {
                [] => String::new(),
                _ => format!("; besides the threes, {} (四三三)", fours.join("; ")),
            }
        }
        Foul::DoubleFour(_) | Foul::Overline(_) => String::new(),
    };
    let stones = when_placed(&shape_stones(&f.foul), placed);
    format!("{}{beside} ({stones})", f.foul)
}

/// When `points`' stones were placed, in log order: `placed at events 1, 3 and 9`, `placed
/// at event 9, 2 standing in the start position`.
pub fn when_placed(points: &[Point], placed: &[Option<u64>]) -> String {
    let mut seqs: Vec<u64> = points.iter().filter_map(|p| placed[p.index()]).collect();
    seqs.sort_unstable();
    let from_start = points.len() - seqs.len();
    let events = match seqs.as_slice() {
        [] => String::new(),
        [one] => format!("placed at event {one}"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(u64::to_string).collect();
            format!("placed at events {} and {last}", init.join(", "))
        }
    };
    match (events.is_empty(), from_start) {
        (false, 0) => events,
        (true, _) => "all standing in the start position".to_string(),
        (false, n) => format!("{events}, {n} standing in the start position"),
    }
}

/// Every stone of the shape's lines, in board order, once.
pub fn shape_stones(foul: &Foul) -> Vec<Point> {
    let mut stones: Vec<Point> = match foul {
        Foul::Overline(line) => line.stones.clone(),
        Foul::DoubleFour(lines) => lines.iter().flat_map(|l| l.stones.clone()).collect(),
        Foul::DoubleThree(threes) => threes.iter().flat_map(|t| t.line.stones.clone()).collect(),
    };
    stones.sort_unstable();
    stones.dedup();
    stones
}

/// The article of the shape, with the procedure's where a procedure applies it:
/// `renju 3.1, 4.1` is a double-three under the claim procedure.
pub fn shape_article(kind: FoulKind, rule: ForbiddenRule) -> Article {
    use ForbiddenRule::{Claim, Loss, Replay};
    use FoulKind::{DoubleFour, DoubleThree, Overline};
    Article::Renju(match (kind, rule) {
        (DoubleThree, Claim) => "3.1, 4.1",
        (DoubleThree, Replay) => "3.1, 4.2",
        (DoubleThree, Loss) => "3.1, 4.3",
        (DoubleFour, Claim) => "3.2, 4.1",
        (DoubleFour, Replay) => "3.2, 4.2",
        (DoubleFour, Loss) => "3.2, 4.3",
        (Overline, Claim) => "3.3, 4.1",
        (Overline, Replay) => "3.3, 4.2",
        (Overline, Loss) => "3.3, 4.3",
    })
}

/// The forbidden shape black's five-making stone on `point` makes besides the five, if any
/// (renju 2.3: the five wins all the same). `after` is the board with the stone placed.
pub fn shapes_beside_five(after: &Board, point: Point) -> Option<String> {
    let before = &after.lifted(point);
    // The five's own line holds no other shape worth naming (its four is the five).
    let five = Direction::ALL
        .into_iter()
        .find(|&d| after.run(point, d).len() == 5);
    let overline = Direction::ALL
        .into_iter()
        .map(|d| after.run(point, d))
        .find(|run| run.len() > 5);
    if let Some(run) = overline {
        return Some(format!("an overline, {}", names(&run)));
    }
    let fours: Vec<_> = fours(before, point)
        .into_iter()
        .filter(|l| Some(l.direction) != five)
        .collect();
    if fours.len() >= 2 {
        let lines: Vec<String> = fours.iter().map(|l| format!("four {l}")).collect();
        return Some(format!("a double-four ({})", lines.join("; ")));
    }
    let live: Vec<String> = threes(before, point)
        .into_iter()
        .filter(|t| t.is_live())
        .map(|t| format!("three {}", t.line))
        .collect();
    (live.len() >= 2).then(|| format!("a double-three ({})", live.join("; ")))
}

fn names(points: &[Point]) -> String {
    let names: Vec<String> = points.iter().map(Point::to_string).collect();
    names.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Point {
        Point::parse(name).unwrap()
    }

    #[test]
    fn a_five_with_a_second_four_is_named_as_a_double_four_beside_the_five() {
        // Row 8: d8 e8 f8 g8 + h8 makes five; column h: h9 h10 h11 + h8 makes a four.
        let before = Board::from_moves("d8 a1 e8 a3 f8 a5 g8 a7 h9 a9 h10 a11 h11 a13").unwrap();
        let mut after = before.clone();
        after.play(p("h8")).unwrap();
        assert!(after.five(p("h8")).is_some());
        let beside = shapes_beside_five(&after, p("h8"));
        assert_eq!(beside, None, "a five and one four make no forbidden shape");
        let before =
            Board::from_moves("d8 a1 e8 a3 f8 a5 g8 a7 h9 a9 h10 a11 h11 a13 i7 a15 j6 b2 k5 b4")
                .unwrap();
        let mut after = before.clone();
        after.play(p("h8")).unwrap();
        let beside = shapes_beside_five(&after, p("h8")).unwrap();
        assert!(beside.starts_with("a double-four (four "), "{beside}");
        assert!(
            !beside.contains("d8"),
            "the five's row is not one of its fours: {beside}"
        );
    }

    #[test]
    fn every_shape_and_procedure_has_its_article() {
        let cases = [
            (
                FoulKind::DoubleThree,
                ForbiddenRule::Claim,
                "renju 3.1, 4.1",
            ),
            (
                FoulKind::DoubleFour,
                ForbiddenRule::Replay,
                "renju 3.2, 4.2",
            ),
            (FoulKind::Overline, ForbiddenRule::Loss, "renju 3.3, 4.3"),
        ];
        for (kind, rule, text) in cases {
            assert_eq!(shape_article(kind, rule).to_string(), text);
        }
    }
}
