//! The four diagonal rays from each square, nearest square first: the only lines along which
//! pieces move and capture (draughts 5.4, 5.9, 6.2, 6.3). Built at compile time so move
//! generation is table look-ups only.

/// Directions, numbered so that `3 - d` is the opposite of `d`: up-left, up-right, down-left,
/// down-right. "Up" is toward row 0, which is forward for white.
pub(super) const UP_LEFT: usize = 0;
pub(super) const UP_RIGHT: usize = 1;
pub(super) const DOWN_LEFT: usize = 2;
pub(super) const DOWN_RIGHT: usize = 3;

/// The squares (0-based indices) in one direction from a square, nearest first.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ray {
    squares: [u8; 9],
    len: u8,
}

impl Ray {
    /// The squares along the ray, nearest first.
    pub(super) fn squares(&self) -> &[u8] {
        &self.squares[..usize::from(self.len)]
    }
}

/// `RAYS[index][direction]`.
pub(super) static RAYS: [[Ray; 4]; 50] = build_rays();

/// The ray from `index` in `direction`.
pub(super) fn ray(index: u8, direction: usize) -> &'static [u8] {
    RAYS[usize::from(index)][direction].squares()
}

/// The direction and distance (1 = adjacent) from one square to another on a shared diagonal.
pub(super) fn line(from: u8, to: u8) -> Option<(usize, usize)> {
    (0..4).find_map(|d| {
        let at = ray(from, d).iter().position(|&s| s == to)?;
        Some((d, at + 1))
    })
}

const fn build_rays() -> [[Ray; 4]; 50] {
    let mut rays = [[Ray {
        squares: [0; 9],
        len: 0,
    }; 4]; 50];
    let mut index = 0u8;
    while index < 50 {
        let mut direction = 0;
        while direction < 4 {
            rays[index as usize][direction] = build_ray(index, direction);
            direction += 1;
        }
        index += 1;
    }
    rays
}

const fn build_ray(index: u8, direction: usize) -> Ray {
    let mut ray = Ray {
        squares: [0; 9],
        len: 0,
    };
    let up = direction < 2;
    let left = direction.is_multiple_of(2);
    let mut row = index / 5;
    // Even rows (0, 2, ..) start with a light square, so their dark squares sit in odd columns.
    let mut column = (index % 5) * 2 + if row.is_multiple_of(2) { 1 } else { 0 };
    loop {
        if (up && row == 0) || (!up && row == 9) || (left && column == 0) || (!left && column == 9)
        {
            return ray;
        }
        row = if up { row - 1 } else { row + 1 };
        column = if left { column - 1 } else { column + 1 };
        ray.squares[ray.len as usize] = row * 5 + column / 2;
        ray.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{DOWN_LEFT, DOWN_RIGHT, UP_LEFT, UP_RIGHT, line, ray};

    fn numbers(index: u8, direction: usize) -> Vec<u8> {
        ray(index, direction).iter().map(|s| s + 1).collect()
    }

    #[test]
    fn long_diagonal_runs_46_to_5() {
        // draughts 1.4: the long diagonal joins 46 and 5.
        assert_eq!(numbers(45, UP_RIGHT), [41, 37, 32, 28, 23, 19, 14, 10, 5]);
        assert_eq!(numbers(4, DOWN_LEFT), [10, 14, 19, 23, 28, 32, 37, 41, 46]);
    }

    #[test]
    fn edges_end_rays() {
        assert!(numbers(0, UP_LEFT).is_empty());
        assert_eq!(numbers(0, DOWN_LEFT), [6]);
        assert_eq!(numbers(0, DOWN_RIGHT), [7, 12, 18, 23, 29, 34, 40, 45]);
        assert_eq!(numbers(31, UP_LEFT), [27, 21, 16]);
        assert!(numbers(45, DOWN_RIGHT).is_empty());
    }

    #[test]
    fn line_finds_direction_and_distance() {
        assert_eq!(line(45, 4), Some((UP_RIGHT, 9)));
        assert_eq!(line(31, 27), Some((UP_RIGHT, 1)));
        assert_eq!(line(31, 22), Some((UP_RIGHT, 2)));
        assert_eq!(line(31, 23), None);
    }
}
