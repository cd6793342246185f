//! Black's forbidden moves (禁手): overline (长连), double-four (四四) and double-three (三三),
//! with the strict recursive definition of a live three (RIF 9.3-9.4): a three counts only if
//! a straight four can be made from it on a point that is not itself forbidden. A move that
//! makes an exact five is never forbidden (RIF 9.2; seed 002: 五连与禁手同时形成，先五为胜),
//! which the recursion honours too: a three whose straight-four point also makes a five is live.

use std::fmt;

use super::board::Board;
use super::line::Window;
use super::point::{Direction, Point};

/// Which forbidden shape a move makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FoulKind {
    /// Six or more black stones in a row (长连).
    Overline,
    /// Two or more fours made by one stone, on one line or several (四四).
    DoubleFour,
    /// Two or more live threes made by one stone (三三).
    DoubleThree,
}

impl FoulKind {
    pub fn name(self) -> &'static str {
        match self {
            FoulKind::Overline => "overline",
            FoulKind::DoubleFour => "double-four",
            FoulKind::DoubleThree => "double-three",
        }
    }
}

impl fmt::Display for FoulKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Black stones on one line that form a shape, the new stone among them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub direction: Direction,
    pub stones: Vec<Point>,
}

/// A three and the points that would make it a straight four.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Three {
    pub line: Line,
    /// Each straight-four point with the forbidden shape black would make there (`None`:
    /// black may play it, so the three is live).
    pub four_points: Vec<(Point, Option<FoulKind>)>,
    /// The straight-four points where black would also make five: never forbidden (RIF 9.2),
    /// so they keep the three live whatever else they make.
    pub fives: Vec<Point>,
}

impl Three {
    /// Live (活三) when at least one straight-four point is not forbidden.
    pub fn is_live(&self) -> bool {
        self.four_points.iter().any(|(_, foul)| foul.is_none())
    }
}

/// Why a black stone is forbidden, as a ruling can state it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Foul {
    Overline(Line),
    DoubleFour(Vec<Line>),
    /// Every three the stone makes, live or not; at least two are live.
    DoubleThree(Vec<Three>),
}

impl Foul {
    pub fn kind(&self) -> FoulKind {
        match self {
            Foul::Overline(_) => FoulKind::Overline,
            Foul::DoubleFour(_) => FoulKind::DoubleFour,
            Foul::DoubleThree(_) => FoulKind::DoubleThree,
        }
    }
}

/// The four lines through an empty point with a black stone placed there.
fn windows(board: &Board, point: Point) -> [Window; 4] {
    Direction::ALL.map(|d| Window::around(board, point, d))
}

/// What black playing on the empty `point` would be: `None` if allowed. The fast test,
/// without the reasons; [`foul`] gives the same answer with them.
pub fn foul_kind(board: &Board, point: Point) -> Option<FoulKind> {
    foul_kind_read(board, point, Reading::STRICT)
}

/// How the live-three test judges a three's straight-four point, at every depth of the
/// recursion. The referee reads the rule strictly (issue 19, RIF 9.2-9.4); the other two
/// readings are those of other programs, kept so that the known-answer test can explain
/// each of their differences rather than list them (src/games/renju/known_answers.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Reading {
    /// A straight-four point where black would make five counts (RIF 9.2: a five is never
    /// forbidden). Programs that say no treat it as unusable for the three.
    pub five_counts: bool,
    /// A straight-four point that is a double-four only with the straight four's own line
    /// among its fours still counts (mintaka's reading; the strict rule says no).
    pub own_line_double_four_counts: bool,
}

impl Reading {
    pub const STRICT: Reading = Reading {
        five_counts: true,
        own_line_double_four_counts: false,
    };
}

/// [`foul_kind`] under `reading`.
pub(super) fn foul_kind_read(board: &Board, point: Point, reading: Reading) -> Option<FoulKind> {
    let lines = windows(board, point);
    if lines.iter().any(Window::is_five) {
        return None;
    }
    if lines.iter().any(Window::is_overline) {
        return Some(FoulKind::Overline);
    }
    let fours: usize = lines.iter().map(|w| w.fours().count()).sum();
    if fours >= 2 {
        return Some(FoulKind::DoubleFour);
    }
    let threes = lines.iter().filter(|w| three_points(w) != 0).count();
    if threes < 2 {
        return None;
    }
    let after = board.with_black(point);
    let live = lines.iter().filter(|w| is_live(&after, w, reading)).count();
    (live >= 2).then_some(FoulKind::DoubleThree)
}

/// The straight-four points of the three on this line; none where the line already holds a
/// four (it is a four, not a three).
fn three_points(window: &Window) -> u16 {
    if window.fours().count() > 0 {
        return 0;
    }
    window.straight_four_points()
}

fn is_live(after: &Board, window: &Window, reading: Reading) -> bool {
    let points = window.points(three_points(window));
    points
        .into_iter()
        .any(|p| counts(after, p, window.direction(), reading))
}

/// Whether the straight-four point `p` of a three along `direction` makes the three live.
fn counts(after: &Board, p: Point, direction: Direction, reading: Reading) -> bool {
    if reading == Reading::STRICT {
        return foul_kind_read(after, p, reading).is_none();
    }
    let five = windows(after, p).iter().any(Window::is_five);
    if five {
        return reading.five_counts;
    }
    match foul_kind_read(after, p, reading) {
        None => true,
        Some(FoulKind::DoubleFour) if reading.own_line_double_four_counts => {
            fours(after, p).iter().any(|l| l.direction == direction)
        }
        Some(_) => false,
    }
}

/// Why black playing on the empty `point` would be forbidden, or `None` if it is allowed
/// (which includes any move that makes an exact five).
pub fn foul(board: &Board, point: Point) -> Option<Foul> {
    let lines = windows(board, point);
    if lines.iter().any(Window::is_five) {
        return None;
    }
    if let Some(w) = lines.iter().find(|w| w.is_overline()) {
        return Some(Foul::Overline(line(w, w.run_stones())));
    }
    let fours = fours(board, point);
    if fours.len() >= 2 {
        return Some(Foul::DoubleFour(fours));
    }
    let threes = threes(board, point);
    let live = threes.iter().filter(|t| t.is_live()).count();
    (live >= 2).then_some(Foul::DoubleThree(threes))
}

fn line(window: &Window, stones: u16) -> Line {
    Line {
        direction: window.direction(),
        stones: window.points(stones),
    }
}

/// Every four black would make on the empty `point`, two on one line counted apart.
pub fn fours(board: &Board, point: Point) -> Vec<Line> {
    let lines = windows(board, point);
    let four = |w: &Window| w.fours().iter().map(|s| line(w, s)).collect::<Vec<_>>();
    lines.iter().flat_map(four).collect()
}

/// Every three black would make on the empty `point`, each with its straight-four points
/// judged on the board with that stone placed.
pub fn threes(board: &Board, point: Point) -> Vec<Three> {
    let after = board.with_black(point);
    let lines = windows(board, point);
    let three = |w: &Window| {
        let points = three_points(w);
        (points != 0).then(|| {
            let four_points = w.points(points);
            let fives = four_points
                .iter()
                .copied()
                .filter(|&p| windows(&after, p).iter().any(Window::is_five))
                .collect();
            Three {
                line: line(w, w.three_stones(points)),
                four_points: four_points
                    .into_iter()
                    .map(|p| (p, foul_kind(&after, p)))
                    .collect(),
                fives,
            }
        })
    };
    lines.iter().filter_map(three).collect()
}

/// Every empty point where black may not play, with its shape, `a1` first.
pub fn forbidden_points(board: &Board) -> Vec<(Point, FoulKind)> {
    Point::all()
        .filter(|&p| board.stone(p).is_none())
        .filter_map(|p| foul_kind(board, p).map(|kind| (p, kind)))
        .collect()
}

fn names(points: &[Point]) -> String {
    let names: Vec<String> = points.iter().map(Point::to_string).collect();
    names.join(" ")
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", names(&self.stones), self.direction)
    }
}

impl fmt::Display for Three {
    /// `three f8 g8 h8 (horizontal), live: a straight four at e8 or i8`, or `..., not live:
    /// k8 would be a double-four`: the recursive definition's reasons.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let playable: Vec<String> = self
            .four_points
            .iter()
            .filter(|(_, foul)| foul.is_none())
            .map(|(p, _)| match self.fives.contains(p) {
                true => format!("{p} (which makes five, so it is never forbidden)"),
                false => p.to_string(),
            })
            .collect();
        let blocked: Vec<String> = self
            .four_points
            .iter()
            .filter_map(|(p, foul)| foul.map(|kind| format!("{p} would be a {kind}")))
            .collect();
        write!(f, "three {}", self.line)?;
        if playable.is_empty() {
            return write!(f, ", not live: {}", blocked.join(", "));
        }
        write!(f, ", live: a straight four at {}", playable.join(" or "))?;
        if !blocked.is_empty() {
            write!(f, " (not at {})", blocked.join(", "))?;
        }
        Ok(())
    }
}

/// The justification a ruling prints, e.g. `double-four: four e5 f6 g7 h8 (diagonal
/// a1-o15); four h8 h9 h10 h11 (vertical)`.
impl fmt::Display for Foul {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.kind())?;
        match self {
            Foul::Overline(line) => write!(f, " {line}"),
            Foul::DoubleFour(fours) => {
                let fours: Vec<String> = fours.iter().map(|l| format!(" four {l}")).collect();
                f.write_str(&fours.join(";"))
            }
            Foul::DoubleThree(threes) => {
                let threes: Vec<String> = threes.iter().map(|t| format!(" {t}")).collect();
                f.write_str(&threes.join(";"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::Stone;
    use super::*;

    /// A board from a diagram: rank 15 first, `x` black, `o` white, `.` empty; rows may be
    /// shorter than 15 (the rest is empty) and fewer than 15 (the lower ranks are empty).
    /// Turns are not checked: these are shapes, not games.
    fn diagram(rows: &[&str]) -> Board {
        let mut board = Board::new();
        for (rank, row) in (0..15u8).rev().zip(rows) {
            for (file, c) in (0..15u8).zip(row.chars()) {
                let stone = match c {
                    'x' => Some(Stone::Black),
                    'o' => Some(Stone::White),
                    _ => None,
                };
                board.put(Point::new(file, rank).unwrap(), stone);
            }
        }
        board
    }

    fn p(name: &str) -> Point {
        Point::parse(name).unwrap()
    }

    fn kind(board: &Board, name: &str) -> Option<FoulKind> {
        let fast = foul_kind(board, p(name));
        // The reasoned test must always agree with the fast one.
        assert_eq!(foul(board, p(name)).map(|f| f.kind()), fast, "{name}");
        fast
    }

    /// Ranks 15..1 with black on the given rank-8 row and the rest empty.
    fn rank8(row: &str) -> Board {
        let mut rows = vec![""; 7];
        rows.push(row);
        diagram(&rows)
    }

    #[test]
    fn overline_is_forbidden_and_named() {
        let board = rank8("..xxx.xx");
        assert_eq!(kind(&board, "f8"), Some(FoulKind::Overline));
        let Some(Foul::Overline(line)) = foul(&board, p("f8")) else {
            panic!("overline expected");
        };
        assert_eq!(line.direction, Direction::Horizontal);
        assert_eq!(line.stones.len(), 6);
        assert_eq!(line.to_string(), "c8 d8 e8 f8 g8 h8 (horizontal)");
    }

    #[test]
    fn exact_five_is_allowed() {
        assert_eq!(kind(&rank8("..xx.xx"), "e8"), None);
    }

    #[test]
    fn double_four_on_two_lines() {
        // e8 makes b8-e8 (horizontal) and e5-e8 (vertical), both one stone from five.
        let board = diagram(&[
            "", "", "", "", "", "", "", //
            ".xxx.", "....x", "....x", "....x",
        ]);
        assert_eq!(kind(&board, "e8"), Some(FoulKind::DoubleFour));
        let Some(Foul::DoubleFour(fours)) = foul(&board, p("e8")) else {
            panic!("double-four expected");
        };
        assert_eq!(fours.len(), 2);
    }

    #[test]
    fn double_four_on_one_line() {
        // x.xxx.x: the stone in the middle makes two fours on one line (四四 on one line).
        assert_eq!(kind(&rank8("x.x.x.x"), "d8"), Some(FoulKind::DoubleFour));
        // xx.xx.xx
        assert_eq!(kind(&rank8("xx.x..xx"), "e8"), Some(FoulKind::DoubleFour));
        // A straight four is one four, not two.
        assert_eq!(kind(&rank8(".xx.x.."), "d8"), None);
    }

    #[test]
    fn four_three_is_allowed() {
        // e8: four b8-e8 and three e7 e6 (vertical, open).
        let board = diagram(&["", "", "", "", "", "", "", ".xxx.", "....x", "....x"]);
        assert_eq!(kind(&board, "e8"), None);
    }

    #[test]
    fn double_three_is_forbidden_and_explained() {
        // h8 joins g8 i8 (horizontal) and h9 h10 (vertical): two live threes.
        let board = diagram(&["", "", "", "", "", ".......x", ".......x", "......x.x"]);
        assert_eq!(kind(&board, "h8"), Some(FoulKind::DoubleThree));
        let Some(Foul::DoubleThree(threes)) = foul(&board, p("h8")) else {
            panic!("double-three expected");
        };
        assert_eq!(threes.len(), 2);
        assert!(threes.iter().all(Three::is_live));
        let text = foul(&board, p("h8")).unwrap().to_string();
        assert!(
            text.starts_with(
                "double-three: three g8 h8 i8 (horizontal), live: a straight four at f8 or j8"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_three_blocked_on_one_side_is_not_live() {
        // The horizontal g8 h8 i8 is closed by white on f8 and the three cannot become
        // .xxxx. any more: only one three remains.
        let board = diagram(&["", "", "", "", "", ".......x", ".......x", ".....ox.x"]);
        assert_eq!(kind(&board, "h8"), None);
        // A split three: d8 makes d8 e8 . g8, closed by white on c8, so f8 gives no straight
        // four; only the column d8 d9 d10 is a three.
        let split = diagram(&["", "", "", "", "", "...x", "...x", "..o.x.x"]);
        assert_eq!(kind(&split, "d8"), None);
        let open = diagram(&["", "", "", "", "", "...x", "...x", "....x.x"]);
        assert_eq!(kind(&open, "d8"), Some(FoulKind::DoubleThree));
    }

    #[test]
    fn the_edge_closes_a_three() {
        // a8 b8 c8 against the edge cannot become a straight four.
        let board = diagram(&["", "", "", "", "", "x", "x", ".xx"]);
        assert_eq!(kind(&board, "a8"), None);
        let open = diagram(&["", "", "", "", "", ".x", ".x", "..xx"]);
        assert_eq!(kind(&open, "b8"), Some(FoulKind::DoubleThree));
    }

    #[test]
    fn a_three_whose_straight_four_point_is_a_double_four_is_not_live() {
        // h8 makes a vertical three h8 h9 h10 and a horizontal three f8 g8 h8 whose
        // straight-four points are e8 and i8. Once h8 is played, e8 makes the straight four
        // e8-h8 and the four e4 e5 e6 . e8 (closed by white on e3): a double-four, so it is
        // forbidden; i8 likewise with i4 i5 i6. The horizontal three is dead and h8 allowed.
        // (e8 alone, before h8, is one four only: the straight four is one of the two.)
        let board = diagram(&[
            "",
            "",
            "",
            "",
            "",          //
            ".......x",  // h10
            ".......x",  // h9
            ".....xx",   // f8 g8
            "",          // rank 7
            "....x...x", // e6 i6
            "....x...x", // e5 i5
            "....x...x", // e4 i4
            "....o...o", // e3 i3
        ]);
        let after = board.with_black(p("h8"));
        assert_eq!(kind(&board, "e8"), None);
        assert_eq!(kind(&after, "e8"), Some(FoulKind::DoubleFour));
        assert_eq!(kind(&after, "i8"), Some(FoulKind::DoubleFour));
        assert_eq!(kind(&board, "h8"), None);
        let found = threes(&board, p("h8"));
        let dead: Vec<&Three> = found.iter().filter(|t| !t.is_live()).collect();
        assert_eq!(dead.len(), 1);
        assert_eq!(dead[0].line.direction, Direction::Horizontal);
        assert_eq!(
            dead[0].four_points,
            [
                (p("e8"), Some(FoulKind::DoubleFour)),
                (p("i8"), Some(FoulKind::DoubleFour))
            ]
        );
    }

    #[test]
    fn a_four_three_point_keeps_a_three_live() {
        // As above without the fours on files e and i: e8 (after h8) makes the straight four
        // e8-h8 and the three e5 e6 . e8, a four-three, which black may play; so the
        // horizontal three is live and h8 is a double-three.
        let board = diagram(&[
            "",
            "",
            "",
            "",
            "",          //
            ".......x",  // h10
            ".......x",  // h9
            ".....xx",   // f8 g8
            "",          // rank 7
            "....x...x", // e6 i6
            "....x...x", // e5 i5
        ]);
        assert_eq!(kind(&board.with_black(p("h8")), "e8"), None);
        assert_eq!(kind(&board, "h8"), Some(FoulKind::DoubleThree));
    }

    #[test]
    fn five_with_a_forbidden_shape_wins() {
        // e8 makes an exact five on rank 8 and an overline-free double-four elsewhere:
        // RIF 9.2, 五连与禁手同时形成，先五为胜.
        let board = diagram(&[
            "", "", "", "", "", "", "", //
            "xxxx.", "....x", "....x", "....x", "", "....x", "....x", "....x",
        ]);
        assert_eq!(kind(&board, "e8"), None);
    }

    #[test]
    fn a_three_whose_straight_four_point_makes_five_is_live() {
        // RIF 9.2 inside the recursion (issue 19 item 4). h8 makes the horizontal three
        // g8 h8 i8 and the vertical three h8 h9 h10, closed below by white on h6, so its only
        // straight-four point is h11. h11 also completes d11-h11, an exact five: a five is
        // never forbidden, so the vertical three is live and h8 is a double-three. (Programs
        // that count a five-making point as unplayable for the three allow h8.)
        let board = diagram(&[
            "",
            "",
            "",
            "",          //
            "...xxxx.o", // d11 e11 f11 g11; white i11
            ".......x",  // h10
            ".......x",  // h9
            "......x.x", // g8 i8
            "",          // rank 7
            ".......o",  // h6
        ]);
        let after = board.with_black(p("h8"));
        assert!(after.with_black(p("h11")).five(p("h11")).is_some());
        assert_eq!(kind(&after, "h11"), None, "a five is never forbidden");
        let vertical = threes(&board, p("h8"))
            .into_iter()
            .find(|t| t.line.direction == Direction::Vertical);
        let vertical = vertical.expect("the vertical three");
        assert_eq!(vertical.four_points, vec![(p("h11"), None)]);
        assert_eq!(vertical.fives, vec![p("h11")]);
        assert!(
            vertical.to_string().ends_with(
                "live: a straight four at h11 (which makes five, so it is never forbidden)"
            ),
            "{vertical}"
        );
        assert_eq!(kind(&board, "h8"), Some(FoulKind::DoubleThree));
    }

    #[test]
    fn white_is_never_judged() {
        // The same overline shape in white is white's five: only black has forbidden moves.
        let board = diagram(&["", "", "", "", "", "", "", "ooo.oo"]);
        let mut white = board.clone();
        white.put(p("d8"), Some(Stone::White));
        assert!(white.five(p("d8")).is_some());
    }

    #[test]
    fn forbidden_points_scan_the_whole_board() {
        let board = rank8("..xxx.xx");
        assert_eq!(
            forbidden_points(&board),
            vec![(p("f8"), FoulKind::Overline)]
        );
        assert!(forbidden_points(&Board::new()).is_empty());
    }
}
