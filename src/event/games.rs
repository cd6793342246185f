//! What a client needs to know of each game to write its events, as JSON: the game's spec
//! (sides, squares, move fields, scoring, notation) with the values each rule option takes.
//! `referee games` prints it and the console reads it, so neither keeps its own list.

use serde_json::{Value, json};

use crate::games::{RuleKey, Variant};

use super::{BoardTouch, ForbiddenRule, IllegalMovePolicy, OpeningRule, Procedure, RuleSet};

/// Every game's description, in the order of [`Variant::ALL`].
pub fn describe_games() -> Value {
    Value::Array(Variant::ALL.iter().map(|&v| describe(v)).collect())
}

/// One game's spec, each rule option with the values it takes.
pub fn describe(variant: Variant) -> Value {
    let spec = variant.spec();
    let mut value = json!(spec);
    let rules: Vec<Value> = spec
        .rules
        .iter()
        .map(|&key| json!({ "key": key.as_str(), "values": rule_values(key) }))
        .collect();
    value["rules"] = Value::Array(rules);
    value
}

/// What a rule option takes: its named values, or the range of a count.
pub fn rule_values(key: RuleKey) -> Vec<&'static str> {
    match key {
        RuleKey::MoveLimit | RuleKey::FoulLimit => vec!["a whole number from 1"],
        RuleKey::RepetitionCount => vec!["a whole number from 2 to 10"],
        RuleKey::IllegalMove => names(IllegalMovePolicy::ALL, IllegalMovePolicy::as_str),
        RuleKey::RuleSet => names(RuleSet::ALL, RuleSet::as_str),
        RuleKey::Procedure => names(Procedure::ALL, Procedure::as_str),
        RuleKey::Forbidden => names(ForbiddenRule::ALL, ForbiddenRule::as_str),
        RuleKey::Opening => OpeningRule::NAMES.to_vec(),
        RuleKey::BoardHoldMs => vec!["milliseconds from 100 to 60000"],
        RuleKey::BoardTouch => names(BoardTouch::ALL, BoardTouch::as_str),
    }
}

fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&v| name(v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_is_described_with_its_rule_values() {
        let games = describe_games();
        let names: Vec<&str> = games
            .as_array()
            .expect("array")
            .iter()
            .map(|g| g["name"].as_str().expect("name"))
            .collect();
        let all: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(names, all);
        let xiangqi = describe(Variant::Xiangqi);
        assert_eq!(xiangqi["sides"], json!(["red", "black"]));
        let rule_set = xiangqi["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .find(|r| r["key"] == "rule_set")
            .expect("xiangqi reads rule_set");
        assert!(
            rule_set["values"]
                .as_array()
                .expect("values")
                .contains(&json!("cxa"))
        );
    }
}
