//! The geometry of RIF-sanctioned openings: the squares around the centre a stone must stand
//! in, the 26 canonical openings (珠型) the first three stones make, and when two fifth-move
//! offers are symmetric. The steps themselves (who places what, swaps, declarations, offers,
//! the choice) are the referee's (docs/rules/renju.md, section 7).
//!
//! Offsets are (files, ranks) from `h8`: positive files toward `o`, positive ranks toward
//! rank 15 (white's side). Canonical orientation, as the RIF diagrams and the published tables
//! draw them: a **direct** opening has white's stone on `h9`, an **indirect** one on `i9`.

use std::fmt;

use super::point::Point;

/// An offset from `h8`: (files, ranks).
type Offset = (i8, i8);

fn offset(point: Point) -> Offset {
    let of = |n: u8| i8::try_from(n).unwrap_or(i8::MAX) - 7;
    (of(point.file()), of(point.rank()))
}

fn at(offset: Offset) -> Option<Point> {
    let to = |n: i8| u8::try_from(n + 7).ok();
    Point::new(to(offset.0)?, to(offset.1)?)
}

/// Whether `point` stands in the `size` x `size` square centred on `h8` (`size` odd: 1 is `h8`
/// alone, 3 is `g7`-`i9`, 5 `f6`-`j10`, 7 `e5`-`k11`, 9 `d4`-`l12`).
pub fn within(point: Point, size: u8) -> bool {
    let half = i8::try_from(size / 2).unwrap_or(i8::MAX);
    let (x, y) = offset(point);
    x.abs() <= half && y.abs() <= half
}

/// The square's corners as a ruling names it, e.g. `f6-j10` for 5.
pub fn square_name(size: u8) -> String {
    let half = i8::try_from(size / 2).unwrap_or(7).min(7);
    match (at((-half, -half)), at((half, half))) {
        (Some(low), Some(high)) if half > 0 => format!("{low}-{high}"),
        _ => Point::CENTRE.to_string(),
    }
}

/// One of the eight symmetries of a square: four rotations, four reflections, as linear maps
/// of offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetry(u8);

impl Symmetry {
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All eight, the identity first.
    pub fn all() -> impl Iterator<Item = Symmetry> {
        (0..8).map(Symmetry)
    }

    fn apply(self, (x, y): Offset) -> Offset {
        match self.0 {
            0 => (x, y),
            1 => (-y, x),  // a quarter turn
            2 => (-x, -y), // a half turn
            3 => (y, -x),  // three quarters
            4 => (-x, y),  // mirror in the file through the centre
            5 => (x, -y),  // mirror in the rank
            6 => (y, x),   // mirror in the diagonal a1-o15
            _ => (-y, -x), // mirror in the diagonal a15-o1
        }
    }

    /// What the map is, in words.
    pub fn name(self) -> &'static str {
        match self.0 {
            0 => "identity",
            1 | 3 => "a quarter turn",
            2 => "a half turn",
            4 | 5 => "a mirror along a file or rank",
            _ => "a mirror along a diagonal",
        }
    }
}

/// Direct (white's first stone beside `h8` on a line) or indirect (on a diagonal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Direct,
    Indirect,
}

impl Family {
    /// White's stone in the canonical orientation.
    fn white(self) -> Offset {
        match self {
            Family::Direct => (0, 1),
            Family::Indirect => (1, 1),
        }
    }
}

/// One of the 26 canonical openings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// `D1`..`D13`, `I1`..`I13`, as RIF numbers them.
    pub code: &'static str,
    /// The Japanese name in romaji, as renju.net writes it.
    pub name: &'static str,
    /// The name in kanji.
    pub kanji: &'static str,
    pub family: Family,
    /// The third stone in the canonical orientation.
    third: Offset,
}

impl Canonical {
    /// The three stones in the canonical orientation: `h8`, then `h9` or `i9`, then the third.
    pub fn stones(&self) -> [Point; 3] {
        let [white, third] =
            [self.family.white(), self.third].map(|o| at(o).unwrap_or(Point::CENTRE));
        [Point::CENTRE, white, third]
    }
}

impl fmt::Display for Canonical {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} ({})", self.code, self.name, self.kanji)
    }
}

const fn opening(
    code: &'static str,
    name: &'static str,
    kanji: &'static str,
    family: Family,
    third: Offset,
) -> Canonical {
    Canonical {
        code,
        name,
        kanji,
        family,
        third,
    }
}

/// The 26 openings (RIF rules article 11), white's stone on `h9` (direct) or `i9` (indirect).
/// Each third stone stands for itself and its mirror image that keeps the first two stones
/// (the file `h` for direct openings, the diagonal `h8`-`i9` for indirect ones).
pub const OPENINGS: [Canonical; 26] = [
    opening("D1", "Kansei", "寒星", Family::Direct, (0, 2)),
    opening("D2", "Keigetsu", "溪月", Family::Direct, (1, 2)),
    opening("D3", "Sosei", "疎星", Family::Direct, (2, 2)),
    opening("D4", "Kagetsu", "花月", Family::Direct, (1, 1)),
    opening("D5", "Zangetsu", "残月", Family::Direct, (2, 1)),
    opening("D6", "Ugetsu", "雨月", Family::Direct, (1, 0)),
    opening("D7", "Kinsei", "金星", Family::Direct, (2, 0)),
    opening("D8", "Shogetsu", "松月", Family::Direct, (0, -1)),
    opening("D9", "Kyugetsu", "丘月", Family::Direct, (1, -1)),
    opening("D10", "Shingetsu", "新月", Family::Direct, (2, -1)),
    opening("D11", "Zuisei", "瑞星", Family::Direct, (0, -2)),
    opening("D12", "Sangetsu", "山月", Family::Direct, (1, -2)),
    opening("D13", "Yusei", "遊星", Family::Direct, (2, -2)),
    opening("I1", "Chosei", "長星", Family::Indirect, (2, 2)),
    opening("I2", "Kyogetsu", "峡月", Family::Indirect, (2, 1)),
    opening("I3", "Kosei", "恒星", Family::Indirect, (2, 0)),
    opening("I4", "Suigetsu", "水月", Family::Indirect, (2, -1)),
    opening("I5", "Ryusei", "流星", Family::Indirect, (2, -2)),
    opening("I6", "Ungetsu", "雲月", Family::Indirect, (1, 0)),
    opening("I7", "Hogetsu", "浦月", Family::Indirect, (1, -1)),
    opening("I8", "Rangetsu", "嵐月", Family::Indirect, (1, -2)),
    opening("I9", "Gingetsu", "銀月", Family::Indirect, (0, -1)),
    opening("I10", "Myojo", "明星", Family::Indirect, (0, -2)),
    opening("I11", "Shagetsu", "斜月", Family::Indirect, (-1, -1)),
    opening("I12", "Meigetsu", "名月", Family::Indirect, (-1, -2)),
    opening("I13", "Suisei", "彗星", Family::Indirect, (-2, -2)),
];

/// Why three stones are not one of the 26 openings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAnOpening {
    /// Black's first stone is not on `h8`.
    FirstOffCentre,
    /// White's stone is not within the 3x3 square around `h8` (or on `h8`).
    SecondOutside,
    /// Black's second stone is not within the 5x5 square (or on a stone).
    ThirdOutside,
}

/// Which of the 26 openings `black1`, `white2`, `black3` make, in any of the eight
/// orientations about `h8`.
pub fn canonical(black1: Point, white2: Point, black3: Point) -> Result<Canonical, NotAnOpening> {
    if black1 != Point::CENTRE {
        return Err(NotAnOpening::FirstOffCentre);
    }
    if white2 == black1 || !within(white2, 3) {
        return Err(NotAnOpening::SecondOutside);
    }
    if black3 == black1 || black3 == white2 || !within(black3, 5) {
        return Err(NotAnOpening::ThirdOutside);
    }
    let (white, third) = (offset(white2), offset(black3));
    for symmetry in Symmetry::all() {
        let (w, t) = (symmetry.apply(white), symmetry.apply(third));
        if let Some(found) = OPENINGS
            .iter()
            .find(|o| o.family.white() == w && o.third == t)
        {
            return Ok(*found);
        }
    }
    // Every point of the 5x5 square but the two stones is one of the 26 in some orientation
    // (the test `every_placement_in_the_squares_is_one_of_the_26` checks it).
    Err(NotAnOpening::ThirdOutside)
}

/// A symmetry of the board as it maps points: one of the eight [`Symmetry`]s followed by a
/// shift, i.e. a rotation about some point or a reflection in some line (the shift is
/// whatever takes the first offer onto the second).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub symmetry: Symmetry,
    shift: Offset,
}

impl Mapping {
    /// Where the map turns or mirrors, in doubled offsets from `h8` (a point between two
    /// points has an odd doubled coordinate), as words.
    fn place(x2: i8, y2: i8) -> String {
        let half = |d: i8| (d.div_euclid(2), d.rem_euclid(2) == 1);
        let ((x, xh), (y, yh)) = (half(x2), half(y2));
        let point = |dx: i8, dy: i8| {
            at((x + dx, y + dy)).map_or_else(|| "off the board".to_string(), |p| p.to_string())
        };
        match (xh, yh) {
            (false, false) => point(0, 0),
            (true, false) => format!("the midpoint of {} and {}", point(0, 0), point(1, 0)),
            (false, true) => format!("the midpoint of {} and {}", point(0, 0), point(0, 1)),
            (true, true) => format!("the centre of the square {}-{}", point(0, 0), point(1, 1)),
        }
    }

    /// The line `file = x2 / 2`, or `rank = y2 / 2`, in words.
    fn line(doubled: i8, of_files: bool) -> String {
        let name = |n: i8| -> String {
            let index = u8::try_from(n + 7).unwrap_or(u8::MAX);
            if of_files {
                char::from(b'a' + index.min(25)).to_string()
            } else {
                (u16::from(index) + 1).to_string()
            }
        };
        let (n, between) = (doubled.div_euclid(2), doubled.rem_euclid(2) == 1);
        match (of_files, between) {
            (true, false) => format!("the {}-file", name(n)),
            (true, true) => format!(
                "the line between the {}- and {}-files",
                name(n),
                name(n + 1)
            ),
            (false, false) => format!("row {}", name(n)),
            (false, true) => format!("the line between rows {} and {}", name(n), name(n + 1)),
        }
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s0, s1) = self.shift;
        match self.symmetry.0 {
            0 => f.write_str("the identity"),
            1 => write!(f, "a quarter turn about {}", Self::place(s0 - s1, s0 + s1)),
            3 => write!(f, "a quarter turn about {}", Self::place(s0 + s1, s1 - s0)),
            2 => write!(f, "a half turn about {}", Self::place(s0, s1)),
            4 => write!(f, "a mirror in {}", Self::line(s0, true)),
            5 => write!(f, "a mirror in {}", Self::line(s1, false)),
            6 => write!(
                f,
                "a mirror in the diagonal (a1-o15 way) through {}",
                Self::place(s0, -s0)
            ),
            _ => write!(
                f,
                "a mirror in the diagonal (a15-o1 way) through {}",
                Self::place(s0, s0)
            ),
        }
    }
}

/// Whether fifth-move offers `a` and `b` are symmetric: a rotation or reflection of the board
/// about any point (the distance to the board's edges does not count) takes the black stones
/// onto the black stones, the white onto the white, and `a` onto `b`. Then the two offers are
/// the same move, which the opening rules forbid ("unequal in all respects"). `None` if they
/// are not; else the map that shows it.
pub fn symmetric(blacks: &[Point], whites: &[Point], a: Point, b: Point) -> Option<Mapping> {
    if a == b {
        return Some(Mapping {
            symmetry: Symmetry::IDENTITY,
            shift: (0, 0),
        });
    }
    let (a, b) = (offset(a), offset(b));
    let blacks: Vec<Offset> = blacks.iter().map(|&p| offset(p)).collect();
    let whites: Vec<Offset> = whites.iter().map(|&p| offset(p)).collect();
    Symmetry::all().skip(1).find_map(|symmetry| {
        // The map p -> L p + shift that takes a to b.
        let (lx, ly) = symmetry.apply(a);
        let shift = (b.0 - lx, b.1 - ly);
        let map = |p: Offset| {
            let (x, y) = symmetry.apply(p);
            (x + shift.0, y + shift.1)
        };
        let onto = |stones: &[Offset]| stones.iter().all(|&p| stones.contains(&map(p)));
        (onto(&blacks) && onto(&whites)).then_some(Mapping { symmetry, shift })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Point {
        Point::parse(name).unwrap()
    }

    fn points(names: &str) -> Vec<Point> {
        names.split_whitespace().map(p).collect()
    }

    #[test]
    fn squares_are_centred_on_h8() {
        assert!(within(p("h8"), 1) && !within(p("h9"), 1));
        assert!(within(p("g7"), 3) && within(p("i9"), 3) && !within(p("j8"), 3));
        assert!(within(p("f6"), 5) && within(p("j10"), 5) && !within(p("k10"), 5));
        assert!(within(p("e5"), 7) && !within(p("d8"), 7));
        assert!(within(p("l12"), 9) && !within(p("m12"), 9));
        assert_eq!(square_name(5), "f6-j10");
        assert_eq!(square_name(9), "d4-l12");
        assert_eq!(square_name(1), "h8");
    }

    #[test]
    fn the_published_examples_are_recognised() {
        // renju.net: "orthodox 4th move in 8d: 1 h8, 2 h9, 3 h7" and "6i: 1 h8, 2 i9, 3 i8".
        assert_eq!(canonical(p("h8"), p("h9"), p("h7")).unwrap().code, "D8");
        assert_eq!(canonical(p("h8"), p("i9"), p("i8")).unwrap().code, "I6");
        // The same openings turned: white below black, or on another diagonal.
        assert_eq!(canonical(p("h8"), p("h7"), p("h9")).unwrap().code, "D8");
        assert_eq!(canonical(p("h8"), p("g7"), p("g8")).unwrap().code, "I6");
        // Mirror images are the same opening: D2 with the third stone on g10 as on i10.
        assert_eq!(canonical(p("h8"), p("h9"), p("g10")).unwrap().code, "D2");
        assert_eq!(canonical(p("h8"), p("i9"), p("h10")).unwrap().code, "I3");
    }

    #[test]
    fn every_placement_in_the_squares_is_one_of_the_26() {
        let mut seen = std::collections::HashMap::new();
        let mut placements = 0;
        for white in Point::all().filter(|&w| within(w, 3) && w != Point::CENTRE) {
            for third in Point::all().filter(|&t| within(t, 5) && t != Point::CENTRE && t != white)
            {
                let found = canonical(Point::CENTRE, white, third).unwrap();
                *seen.entry(found.code).or_insert(0) += 1;
                placements += 1;
            }
        }
        // 8 places for white, 23 for the third stone; every opening reached.
        assert_eq!(placements, 8 * 23);
        assert_eq!(seen.len(), 26, "{seen:?}");
        // An opening on its mirror axis has 4 orientations, any other 8.
        for o in OPENINGS {
            let on_axis = match o.family {
                Family::Direct => o.third.0 == 0,
                Family::Indirect => o.third.0 == o.third.1,
            };
            assert_eq!(seen[o.code], if on_axis { 4 } else { 8 }, "{o}");
        }
    }

    #[test]
    fn each_opening_stands_where_the_table_puts_it() {
        for o in OPENINGS {
            let [b1, w2, b3] = o.stones();
            assert_eq!(canonical(b1, w2, b3), Ok(o), "{o}");
        }
        assert_eq!(OPENINGS[0].stones(), [p("h8"), p("h9"), p("h10")]);
        assert_eq!(OPENINGS[25].stones(), [p("h8"), p("i9"), p("f6")]);
    }

    #[test]
    fn stones_outside_their_squares_are_no_opening() {
        use NotAnOpening::*;
        assert_eq!(canonical(p("h9"), p("h10"), p("h11")), Err(FirstOffCentre));
        assert_eq!(canonical(p("h8"), p("h10"), p("h11")), Err(SecondOutside));
        assert_eq!(canonical(p("h8"), p("h8"), p("h10")), Err(SecondOutside));
        assert_eq!(canonical(p("h8"), p("h9"), p("h11")), Err(ThirdOutside));
        assert_eq!(canonical(p("h8"), p("h9"), p("h9")), Err(ThirdOutside));
        assert_eq!(canonical(p("h8"), p("h9"), p("k8")), Err(ThirdOutside));
    }

    #[test]
    fn offers_mirrored_in_the_line_of_the_stones_are_symmetric() {
        // D8 with the orthodox 4th on h6: every stone on file h, and the stones mirror each
        // other across the line between ranks 7 and 8 too (black h8-h7, white h9-h6). So g8,
        // g7, i8 and i7 are one move four times over (Meritee: "black can offer 4 symmetrical
        // versions of main 5th move").
        let (blacks, whites) = (points("h8 h7"), points("h9 h6"));
        let four = points("g8 g7 i8 i7");
        for (i, &a) in four.iter().enumerate() {
            for &b in &four[i + 1..] {
                assert!(symmetric(&blacks, &whites, a, b).is_some(), "{a} {b}");
            }
        }
        assert!(symmetric(&blacks, &whites, p("g8"), p("g9")).is_none());
        assert!(symmetric(&blacks, &whites, p("i9"), p("i10")).is_none());
        // On file h an offer meets its image across the rank line only.
        assert!(symmetric(&blacks, &whites, p("h5"), p("h10")).is_some());
        assert!(symmetric(&blacks, &whites, p("h5"), p("h11")).is_none());
    }

    #[test]
    fn symmetry_about_a_line_or_point_off_the_centre_counts() {
        // D6 with the 4th on i9: black h8 i8, white h9 i9, a square whose mirror line runs
        // between files h and i.
        let (blacks, whites) = (points("h8 i8"), points("h9 i9"));
        assert!(symmetric(&blacks, &whites, p("g8"), p("j8")).is_some());
        assert!(symmetric(&blacks, &whites, p("g7"), p("j7")).is_some());
        assert!(symmetric(&blacks, &whites, p("g8"), p("j7")).is_none());
        // Black h8 i9, white i8 h9: a half turn about the middle of the four.
        let (blacks, whites) = (points("h8 i9"), points("i8 h9"));
        let map = symmetric(&blacks, &whites, p("g7"), p("j10")).unwrap();
        assert!(map.symmetry.name().contains("turn") || map.symmetry.name().contains("diagonal"));
        assert!(symmetric(&blacks, &whites, p("g7"), p("j9")).is_none());
    }

    #[test]
    fn a_position_without_symmetry_makes_every_offer_distinct() {
        // D3 (h8 h9 j10) with a 4th on k7: no rotation or mirror keeps the stones.
        let (blacks, whites) = (points("h8 j10"), points("h9 k7"));
        let empty: Vec<Point> = Point::all()
            .filter(|q| !blacks.contains(q) && !whites.contains(q))
            .collect();
        for (i, &a) in empty.iter().enumerate() {
            for &b in &empty[i + 1..] {
                assert!(symmetric(&blacks, &whites, a, b).is_none(), "{a} {b}");
            }
        }
    }

    #[test]
    fn the_same_point_twice_is_the_same_offer() {
        let (blacks, whites) = (points("h8 j10"), points("h9 k7"));
        assert_eq!(
            symmetric(&blacks, &whites, p("a1"), p("a1")).map(|m| m.symmetry),
            Some(Symmetry::IDENTITY)
        );
    }

    #[test]
    fn a_mapping_names_its_centre_or_its_line() {
        let ps = |names: &[&str]| names.iter().map(|n| p(n)).collect::<Vec<_>>();
        // All four stones on the h-file: g7 and i7 mirror in it.
        let (blacks, whites) = (ps(&["h8", "h10"]), ps(&["h9", "h6"]));
        let map = symmetric(&blacks, &whites, p("g7"), p("i7")).expect("symmetric");
        assert_eq!(map.to_string(), "a mirror in the h-file");
        // Black h8 i8, white h9 i9: the line between the h- and i-files, or row 8 and 9's.
        let (blacks, whites) = (ps(&["h8", "i8"]), ps(&["h9", "i9"]));
        let map = symmetric(&blacks, &whites, p("g10"), p("j10")).expect("symmetric");
        assert_eq!(
            map.to_string(),
            "a mirror in the line between the h- and i-files"
        );
        // Black h8 j8, white i9 i7: a half turn about i8 takes h8 to j8.
        let (blacks, whites) = (ps(&["h8", "j8"]), ps(&["i9", "i7"]));
        let map = symmetric(&blacks, &whites, p("h9"), p("j7")).expect("symmetric");
        assert_eq!(map.to_string(), "a half turn about i8");
    }
}
