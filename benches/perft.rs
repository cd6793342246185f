//! Perft speed per variant: `cargo bench --bench perft [-- VARIANT DEPTH [FEN]]`.

use std::time::Instant;

use referee::games::{self, Variant};

fn measure(variant: Variant, fen: Option<&str>, depth: u32) {
    let start = Instant::now();
    let nodes = games::perft(variant, fen, depth).expect("perft");
    let secs = start.elapsed().as_secs_f64();
    let rate = nodes as f64 / secs / 1e6;
    let at = fen.unwrap_or("start");
    println!(
        "{variant:<9} depth {depth} from {at}: {nodes} nodes in {secs:.2} s = {rate:.1} M nodes/s"
    );
}

/// Ordinary chess perft by shakmaty (an independent, well-kept chess crate), from the same
/// position in the same run: chess_gjq without hidden pieces is ordinary chess.
fn shakmaty_side_by_side(fen: &str, depth: u32) {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};
    let pos: Chess = fen
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("position");
    let start = Instant::now();
    let nodes = shakmaty::perft(&pos, depth);
    let secs = start.elapsed().as_secs_f64();
    let rate = nodes as f64 / secs / 1e6;
    println!(
        "shakmaty  depth {depth} from {fen}: {nodes} nodes in {secs:.2} s = {rate:.1} M nodes/s"
    );
}

const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if let [variant, depth, rest @ ..] = args.as_slice() {
        let variant = Variant::parse(variant).expect("variant: chess_gjq, xiangqi or draughts");
        measure(
            variant,
            rest.first().map(String::as_str),
            depth.parse().expect("depth"),
        );
        return;
    }
    measure(Variant::Xiangqi, None, 5);
    measure(Variant::ChessGjq, None, 5);
    measure(Variant::ChessGjq, Some(CHESS_START), 5);
    shakmaty_side_by_side(CHESS_START, 5);
    measure(Variant::ChessGjq, Some(KIWIPETE), 4);
    shakmaty_side_by_side(KIWIPETE, 4);
    measure(Variant::Draughts, None, 8);
}
