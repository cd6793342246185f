//! The verdict on a repeated cycle (xiangqi 26.1-26.4) from the names of each side's moves.

use crate::games::xiangqi::Color;
use crate::referee::Article;

use super::classify::Class;

/// How one side played in the cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conduct {
    /// Every move a check (长将).
    PerpetualCheck,
    /// Every move check, mate threat or chase, not all checks (长杀, 长捉 and mixtures).
    Forbidden,
    /// At least one idle move (闲, 数将一闲 ...): allowed (25.2).
    Allowed,
}

impl Conduct {
    /// The conduct of a side whose moves in the cycle had the names `classes`; with
    /// `soldiers_count`, a soldier's attacks count as chases (mutual attacks, 27.2).
    pub fn of(classes: &[&Class], soldiers_count: bool) -> Conduct {
        let forbidden = |c: &Class| {
            if soldiers_count {
                c.forbidden_counting_soldiers()
            } else {
                c.forbidden()
            }
        };
        if !classes.is_empty() && classes.iter().all(|c| **c == Class::Check) {
            Conduct::PerpetualCheck
        } else if !classes.is_empty() && classes.iter().all(|c| forbidden(c)) {
            Conduct::Forbidden
        } else {
            Conduct::Allowed
        }
    }

    /// The conduct in the words of the ruling's text.
    pub fn describe(self) -> &'static str {
        match self {
            Conduct::PerpetualCheck => "perpetual check (长将, forbidden)",
            Conduct::Forbidden => "forbidden moves only (长杀/长捉 or a mixture, forbidden)",
            Conduct::Allowed => "at least one idle move (allowed)",
        }
    }
}

/// What the cycle comes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `loser` must vary and, having repeated, loses; `check` says it was perpetual check.
    Loss { loser: Color, check: bool },
    /// A draw, under the article given.
    Draw { article: Article },
}

/// Xiangqi 26: red's and black's conduct give the verdict.
pub fn judge(red: Conduct, black: Conduct) -> Verdict {
    use Conduct::{Allowed, Forbidden, PerpetualCheck};
    match (red, black) {
        (PerpetualCheck, PerpetualCheck) => Verdict::Draw {
            article: Article::Xiangqi("26.3"),
        },
        (PerpetualCheck, _) => Verdict::Loss {
            loser: Color::Red,
            check: true,
        },
        (_, PerpetualCheck) => Verdict::Loss {
            loser: Color::Black,
            check: true,
        },
        (Forbidden, Allowed) => Verdict::Loss {
            loser: Color::Red,
            check: false,
        },
        (Allowed, Forbidden) => Verdict::Loss {
            loser: Color::Black,
            check: false,
        },
        (Forbidden, Forbidden) => Verdict::Draw {
            article: Article::Xiangqi("26.3"),
        },
        (Allowed, Allowed) => Verdict::Draw {
            article: Article::Xiangqi("26.2"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sided_check_loses_even_against_a_chase() {
        let v = judge(Conduct::Forbidden, Conduct::PerpetualCheck);
        assert_eq!(
            v,
            Verdict::Loss {
                loser: Color::Black,
                check: true
            }
        );
        assert_eq!(
            judge(Conduct::Allowed, Conduct::Allowed),
            Verdict::Draw {
                article: Article::Xiangqi("26.2")
            }
        );
    }
}
