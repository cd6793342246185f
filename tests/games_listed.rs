//! Every list of the games names every game (issue 30): the help texts, the errors that say
//! which games there are, the console's drawings, and any enumeration of three or more games
//! written in the tree (code, comments, proto, docs). A game added to `Variant` and missing
//! from one of them fails here, which the compiler alone would not find.

use std::path::Path;

use referee::event::parse_log;
use referee::games::Variant;

use crate::common::{referee, repo_path};

/// How a text may name `variant`: its log name, that name with a space, its title without the
/// native name (`international draughts`), lower-cased.
fn spellings(variant: Variant) -> Vec<String> {
    let spec = variant.spec();
    let title = spec.title.split(" (").next().unwrap_or(spec.title);
    let mut all = vec![
        spec.name.to_string(),
        spec.name.replace('_', " "),
        title.to_lowercase(),
    ];
    all.sort_by_key(|s| std::cmp::Reverse(s.len()));
    all.dedup();
    all
}

/// Every place a game is named in `text`: (start, end, variant), in order, longest spelling
/// first where two overlap.
fn mentions(text: &str) -> Vec<(usize, usize, Variant)> {
    let lower = text.to_lowercase();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut found = Vec::new();
    for &variant in Variant::ALL {
        for spelling in spellings(variant) {
            for (start, _) in lower.match_indices(&spelling) {
                let end = start + spelling.len();
                let before = lower[..start].chars().next_back();
                let after = lower[end..].chars().next();
                if !word(before) && !word(after) {
                    found.push((start, end, variant));
                }
            }
        }
    }
    found.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
    let mut kept: Vec<(usize, usize, Variant)> = Vec::new();
    for m in found {
        if kept.last().is_none_or(|last| m.0 >= last.1) {
            kept.push(m);
        }
    }
    kept
}

/// Whether `gap` (the text between two names) joins them into one list: a comma, "or",
/// "and", a slash, with line breaks and comment markers between.
fn joins(gap: &str) -> bool {
    let gap = without_glosses(gap);
    let words: Vec<&str> = gap
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty() && !matches!(*w, "//" | "///" | "//!" | "#" | "*" | "--"))
        .collect();
    // Plain words (`, `, ` or `), quoted names (`", "`) and code spans (`` `, ` ``).
    matches!(
        words.join(" ").as_str(),
        "," | "or" | "and" | ", or" | ", and" | "/" | "|" | "`, `" | "\", \""
    )
}

/// `gap` without a gloss in parentheses after a name (`Chess Gjq (国象翻棋), ...`): words,
/// not code (`Xiangqi(XiangqiTable),` stays as it is).
fn without_glosses(gap: &str) -> String {
    let mut kept = String::new();
    let mut rest = gap;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let inside = &rest[open + 1..open + close];
        let words = inside.contains(' ') || !inside.is_ascii();
        kept.push_str(&rest[..open]);
        if !words {
            kept.push_str(&rest[open..=open + close]);
        }
        rest = &rest[open + close + 1..];
    }
    kept.push_str(rest);
    kept
}

/// The lists of three or more games in `text` that leave a game out, each as its words.
fn short_lists(text: &str) -> Vec<String> {
    let names = mentions(text);
    let mut problems = Vec::new();
    let mut i = 0;
    while i < names.len() {
        let mut j = i;
        while j + 1 < names.len() && joins(&text[names[j].1..names[j + 1].0]) {
            j += 1;
        }
        let listed: Vec<Variant> = names[i..=j].iter().map(|m| m.2).collect();
        let distinct = Variant::ALL.iter().filter(|v| listed.contains(v)).count();
        if distinct >= 3 && distinct < Variant::ALL.len() && !marked_partial(text, names[i].0) {
            problems.push(text[names[i].0..names[j].1].to_string());
        }
        i = j + 1;
    }
    problems
}

/// Whether the list at `at` is marked as knowingly partial (`games-listed: partial`, with the
/// reason, on its line or the line before).
fn marked_partial(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let previous = text[..line_start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    text[previous..line_end].contains(MARK)
}

/// The mark of a list that leaves games out on purpose; the test's own text is built so that
/// it does not carry it.
const MARK: &str = concat!("games-listed", ": partial");

fn text_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            text_files(&path, out);
        } else if std::fs::read_to_string(&path).is_ok() {
            out.push(path);
        }
    }
}

#[test]
fn the_checker_finds_a_short_list_and_passes_a_whole_one() {
    assert_eq!(
        short_lists("// unknown variant (expected chess_gjq, xiangqi or\n// draughts)"),
        ["chess_gjq, xiangqi or\n// draughts"]
    );
    assert!(short_lists(&format!("expected {}", Variant::names())).is_empty());
    // The examples are put together here so that this file itself holds no short list.
    let [a, b, c] = [Variant::Xiangqi, Variant::ChessGjq, Variant::Draughts].map(Variant::name);
    assert_eq!(short_lists(&format!("--variant {{{a}|{b}|{c}}}")).len(), 1);
    let glossed = format!(
        "for {} (国象翻棋), {a} (象棋) and international {c}",
        "Chess Gjq"
    );
    assert_eq!(short_lists(&glossed).len(), 1);
    assert!(short_lists(&format!("{a}(T),\n    {c}(U),\n    Renju")).is_empty());
    let marked =
        format!("// {MARK}: bench data\nconst NAMES = [\"xiangqi\", \"chess_gjq\", \"draughts\"];");
    assert!(short_lists(&marked).is_empty());
    // Two games named together are a statement about those two, not a list of the games.
    assert!(short_lists("in xiangqi and draughts no legal move loses").is_empty());
}

#[test]
fn every_list_of_games_in_the_tree_names_every_game() {
    let mut files = Vec::new();
    text_files(&repo_path("."), &mut files);
    let mut problems = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        for list in short_lists(&text) {
            let shown = path.strip_prefix(repo_path(".")).unwrap_or(&path);
            problems.push(format!("{}: {list:?}", shown.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "lists of games that leave a game out (write every game, or name the games the \
         sentence is about):\n{}",
        problems.join("\n")
    );
}

/// The subcommands `referee --help` lists.
fn subcommands() -> Vec<String> {
    let help = String::from_utf8(referee(&["--help"]).stdout).expect("utf-8");
    let commands = help
        .split("Commands:")
        .nth(1)
        .and_then(|rest| rest.split("Options:").next())
        .expect("a Commands: section");
    commands
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| *word != "help")
        .map(String::from)
        .collect()
}

#[test]
fn every_help_text_names_every_game_where_it_names_any() {
    let top = String::from_utf8(referee(&["--help"]).stdout).expect("utf-8");
    for &variant in Variant::ALL {
        assert!(top.contains(variant.spec().title), "referee --help: {top}");
    }
    let perft = String::from_utf8(referee(&["perft", "--help"]).stdout).expect("utf-8");
    for &variant in Variant::ALL {
        assert!(
            perft.contains(variant.name()),
            "referee perft --help: {perft}"
        );
    }
    for command in subcommands() {
        let out = referee(&[&command, "--help"]);
        let help = String::from_utf8(out.stdout).expect("utf-8");
        assert!(!help.is_empty(), "referee {command} --help printed nothing");
        assert_eq!(
            short_lists(&help),
            Vec::<String>::new(),
            "referee {command} --help"
        );
    }
}

#[test]
fn every_error_that_lists_the_games_names_every_game() {
    let error = parse_log("{\"type\":\"game\",\"variant\":\"go\",\"id\":\"g\"}\n")
        .expect_err("go is no game here")
        .to_string();
    let perft = referee(&["perft", "--variant", "go", "--depth", "1"]);
    let perft = String::from_utf8(perft.stderr).expect("utf-8");
    let header = referee::service::proto::GameHeader {
        variant: "go".into(),
        id: "g".into(),
        ..Default::default()
    };
    let grpc = referee::service::header_from_proto(header)
        .expect_err("go is no game here")
        .to_string();
    for &variant in Variant::ALL {
        for (what, text) in [("log", &error), ("perft", &perft), ("gRPC", &grpc)] {
            assert!(text.contains(variant.name()), "{what}: {text}");
        }
    }
}

#[test]
fn the_console_draws_every_game_and_keeps_no_other_list() {
    let boards = std::fs::read_to_string(repo_path("src/service/console/assets/boards.js"))
        .expect("boards.js");
    let drawings = boards
        .lines()
        .find(|l| l.starts_with("const DRAWINGS = {"))
        .expect("the DRAWINGS table");
    for &variant in Variant::ALL {
        assert!(
            drawings.contains(&format!("{}: ", variant.name())),
            "no board drawing for {variant} in boards.js: {drawings}"
        );
    }
    let app =
        std::fs::read_to_string(repo_path("src/service/console/assets/app.js")).expect("app.js");
    for &variant in Variant::ALL {
        let case = format!("case \"{}\"", variant.name());
        assert!(
            !app.contains(&case),
            "app.js switches on {variant}: read the game's spec instead"
        );
    }
}
