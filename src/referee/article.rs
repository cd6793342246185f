//! The article a ruling applies, typed by rule book and written as the log format writes it
//! (`xiangqi 26.4`, `chess_gjq 5.7`, `draughts 12.4`).

use std::fmt;

use crate::games::Variant;

/// An article of a rule book, or the other authorities a ruling may cite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Article {
    /// An article of the chess_gjq rule book: `ChessGjq("5.7")` is `chess_gjq 5.7`.
    ChessGjq(&'static str),
    /// An article of the xiangqi rules (CXA, or the reform of seed 001 where named).
    Xiangqi(&'static str),
    /// An article of the FMJD rules of international draughts.
    Draughts(&'static str),
    /// An article of the renju digest (docs/rules/renju.md, from seed 002's gomoku texts);
    /// `Renju("3.1, 4.1")` cites a shape and the procedure that applies it.
    Renju(&'static str),
    /// A chess_gjq article beside the FIDE law chess_gjq follows where its own book is
    /// silent: `chess_gjq 5.3, FIDE 6.9`.
    ChessGjqFide {
        gjq: &'static str,
        fide: &'static str,
    },
    /// The log format's own rule, for an event the arbiter must look at rather than a breach
    /// by a player: `log format: invalid_event`.
    LogFormat(&'static str),
    /// The arbiter's word, in a game: `xiangqi arbiter`.
    Arbiter(Variant),
    /// An article as the `games` layer names it in full (`chess_gjq 5.2`): a rule check
    /// there cites the article it enforces.
    Game(&'static str),
}

impl fmt::Display for Article {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Article::ChessGjq(n) => write!(f, "chess_gjq {n}"),
            Article::Xiangqi(n) => write!(f, "xiangqi {n}"),
            Article::Draughts(n) => write!(f, "draughts {n}"),
            Article::Renju(n) => write!(f, "renju {n}"),
            Article::ChessGjqFide { gjq, fide } => write!(f, "chess_gjq {gjq}, FIDE {fide}"),
            Article::LogFormat(n) => write!(f, "log format: {n}"),
            Article::Arbiter(variant) => write!(f, "{variant} arbiter"),
            Article::Game(full) => f.write_str(full),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_read_as_the_log_format_writes_them() {
        let cases = [
            (Article::Xiangqi("26.4"), "xiangqi 26.4"),
            (Article::ChessGjq("5.7"), "chess_gjq 5.7"),
            (Article::Draughts("12.4"), "draughts 12.4"),
            (Article::Renju("3.1, 4.1"), "renju 3.1, 4.1"),
            (
                Article::ChessGjqFide {
                    gjq: "5.3",
                    fide: "6.9",
                },
                "chess_gjq 5.3, FIDE 6.9",
            ),
            (
                Article::LogFormat("invalid_event"),
                "log format: invalid_event",
            ),
            (Article::Arbiter(Variant::Draughts), "draughts arbiter"),
            (Article::Game("chess_gjq 5.2"), "chess_gjq 5.2"),
        ];
        for (article, text) in cases {
            assert_eq!(article.to_string(), text);
        }
    }
}
