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
    measure(Variant::Draughts, None, 8);
}
