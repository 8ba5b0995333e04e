//! Both numberings against the seed's own tables, transcribed into
//! `testdata/seed-tables.csv`: the Scharnagl King's table, the Fritz9
//! NQ-skeleton table (60 skeletons each, with the bishops on a1 and b1) and
//! the Bishop's table (16 bishop codes).
//!
//! The seed's table method — id = M + bishop code, where M is the skeleton's
//! number — covers all 960 arrangements from 60 + 16 rows, so checking it
//! for every skeleton and every bishop code checks both numberings
//! exhaustively against the published tables.

use std::collections::HashMap;

use pgn960::BackRank;

#[derive(Debug, serde::Deserialize)]
struct SeedRow {
    table: String,
    number: u16,
    pattern: String,
}

/// The seed tables: skeletons of each numbering and the bishop patterns.
pub struct SeedTables {
    /// (number M, six-letter NQ-skeleton) in Scharnagl's King's table.
    pub scharnagl: Vec<(u16, String)>,
    /// (number M, six-letter NQ-skeleton) in the Fritz9 table.
    pub fritz9: Vec<(u16, String)>,
    /// Bishop code 0..=15 -> pattern such as `--B--B--`.
    pub bishops: Vec<String>,
}

impl SeedTables {
    pub fn load() -> SeedTables {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/seed-tables.csv");
        let mut reader = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_path(path)
            .expect("testdata/seed-tables.csv opens");
        let mut tables = SeedTables {
            scharnagl: Vec::new(),
            fritz9: Vec::new(),
            bishops: Vec::new(),
        };
        for row in reader.deserialize() {
            let row: SeedRow = row.expect("seed table row parses");
            match row.table.as_str() {
                "scharnagl" => tables.scharnagl.push((row.number, row.pattern)),
                "fritz9" => tables.fritz9.push((row.number, row.pattern)),
                "bishops" => {
                    assert_eq!(
                        usize::from(row.number),
                        tables.bishops.len(),
                        "bishop codes in order"
                    );
                    tables.bishops.push(row.pattern);
                }
                other => panic!("unknown seed table {other:?}"),
            }
        }
        assert_eq!(tables.scharnagl.len(), 60);
        assert_eq!(tables.fritz9.len(), 60);
        assert_eq!(tables.bishops.len(), 16);
        tables
    }

    /// Every arrangement with its (Scharnagl, Fritz9) numbers by the
    /// seed's table method.
    pub fn all_numbers(&self) -> HashMap<String, (u16, u16)> {
        let by_method = |skeletons: &[(u16, String)]| -> HashMap<String, u16> {
            let mut numbers = HashMap::new();
            for (m, skeleton) in skeletons {
                for (code, bishops) in self.bishops.iter().enumerate() {
                    let arrangement = place(bishops, skeleton);
                    let id = m + code as u16;
                    assert_eq!(
                        numbers.insert(arrangement.clone(), id),
                        None,
                        "{arrangement}"
                    );
                }
            }
            numbers
        };
        let scharnagl = by_method(&self.scharnagl);
        let fritz9 = by_method(&self.fritz9);
        assert_eq!(scharnagl.len(), 960);
        assert_eq!(fritz9.len(), 960);
        scharnagl
            .into_iter()
            .map(|(arrangement, s)| {
                let f = fritz9[&arrangement];
                (arrangement, (s, f))
            })
            .collect()
    }
}

/// Fills the `-` squares of a bishop pattern with the skeleton's pieces, in
/// order (the seed's "insert the pieces from the King's table into these
/// gaps").
fn place(bishops: &str, skeleton: &str) -> String {
    let mut pieces = skeleton.chars();
    let arrangement: String = bishops
        .chars()
        .map(|square| match square {
            'B' => 'B',
            _ => pieces.next().expect("six gaps for six pieces"),
        })
        .collect();
    assert_eq!(pieces.next(), None, "six gaps for six pieces");
    arrangement
}

#[test]
fn scharnagl_kings_table() {
    for (m, skeleton) in SeedTables::load().scharnagl {
        let arrangement = format!("BB{skeleton}");
        let rank: BackRank = arrangement.parse().expect(&arrangement);
        assert_eq!(rank.scharnagl(), m, "{arrangement}");
        assert_eq!(
            BackRank::from_scharnagl(u32::from(m)),
            Ok(rank),
            "Scharnagl {m}"
        );
    }
}

#[test]
fn fritz9_skeleton_table() {
    for (m, skeleton) in SeedTables::load().fritz9 {
        let arrangement = format!("BB{skeleton}");
        let rank: BackRank = arrangement.parse().expect(&arrangement);
        assert_eq!(rank.fritz9(), m, "{arrangement}");
        assert_eq!(BackRank::from_fritz9(u32::from(m)), Ok(rank), "Fritz9 {m}");
    }
}

#[test]
fn bishop_codes() {
    let tables = SeedTables::load();
    for (code, bishops) in tables.bishops.iter().enumerate() {
        let rank: BackRank = place(bishops, "QNNRKR").parse().expect(bishops);
        assert_eq!(usize::from(rank.bishop_code()), code, "{bishops}");
    }
}

#[test]
fn every_skeleton_with_every_bishop_code() {
    let numbers = SeedTables::load().all_numbers();
    for (arrangement, (scharnagl, fritz9)) in &numbers {
        let rank: BackRank = arrangement.parse().expect(arrangement);
        assert_eq!(rank.scharnagl(), *scharnagl, "{arrangement}");
        assert_eq!(rank.fritz9(), *fritz9, "{arrangement}");
        assert_eq!(BackRank::from_scharnagl(u32::from(*scharnagl)), Ok(rank));
        assert_eq!(BackRank::from_fritz9(u32::from(*fritz9)), Ok(rank));
    }
}

#[test]
fn seed_worked_examples() {
    // "518 = 512 + 6": skeleton RNQKNR with bishops --B--B--.
    let numbers = SeedTables::load().all_numbers();
    assert_eq!(numbers["RNBQKBNR"], (518, 359));
    assert_eq!(numbers["BBQNNRKR"], (0, 81));
    assert_eq!(BackRank::STANDARD.scharnagl(), 518);
    assert_eq!(BackRank::STANDARD.fritz9(), 359);
}

/// `table`'s feature columns for all 960 arrays, against what the seed's
/// arrangement strings say: each expected file is the index of a letter
/// in the seed's arrangement, a bishop on an odd index (b, d, f, h; a1 is
/// dark) is the light-squared one, and the mirror's number is the seed's
/// number of the arrangement read backwards.
#[test]
fn table_features_agree_with_the_seed_for_all_960() {
    let numbers = SeedTables::load().all_numbers();
    let by_scharnagl: HashMap<u16, &str> = numbers
        .iter()
        .map(|(arrangement, (scharnagl, _))| (*scharnagl, arrangement.as_str()))
        .collect();
    let file = |i: usize| ((b'a' + i as u8) as char).to_string();
    let files_of = |arrangement: &str, piece: char| -> Vec<usize> {
        arrangement
            .char_indices()
            .filter(|(_, c)| *c == piece)
            .map(|(i, _)| i)
            .collect()
    };
    let out = crate::common::pgn960(&["table"], None).ok("table");
    let mut reader = csv::Reader::from_reader(&out[..]);
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header[5..],
        [
            "king_file",
            "queen_file",
            "knight_file_1",
            "knight_file_2",
            "queenside_rook_file",
            "kingside_rook_file",
            "light_bishop_file",
            "dark_bishop_file",
            "mirror_scharnagl"
        ]
    );
    let mut rows = 0;
    for record in reader.records() {
        let record = record.unwrap();
        let scharnagl: u16 = record[0].parse().unwrap();
        let arrangement = by_scharnagl[&scharnagl];
        assert_eq!(&record[2], arrangement, "Scharnagl {scharnagl}");
        let (knights, rooks, bishops) = (
            files_of(arrangement, 'N'),
            files_of(arrangement, 'R'),
            files_of(arrangement, 'B'),
        );
        let light = bishops.iter().find(|i| *i % 2 == 1).unwrap();
        let dark = bishops.iter().find(|i| *i % 2 == 0).unwrap();
        let mirrored: String = arrangement.chars().rev().collect();
        let expected = [
            file(files_of(arrangement, 'K')[0]),
            file(files_of(arrangement, 'Q')[0]),
            file(knights[0]),
            file(knights[1]),
            file(rooks[0]),
            file(rooks[1]),
            file(*light),
            file(*dark),
            numbers[&mirrored].0.to_string(),
        ];
        let got: Vec<&str> = record.iter().skip(5).collect();
        assert_eq!(got, expected, "Scharnagl {scharnagl}, {arrangement}");
        rows += 1;
    }
    assert_eq!(rows, 960);
}

/// The position rows of `stats` end with the feature columns of `table`,
/// the same values for every one of the 960 positions, grouped or not.
#[test]
fn stats_rows_end_with_the_features_of_table() {
    let table = crate::common::pgn960(&["table"], None).ok("table");
    let features: HashMap<String, Vec<String>> = csv::Reader::from_reader(&table[..])
        .records()
        .map(|record| {
            let record = record.unwrap();
            let cells: Vec<String> = record.iter().map(String::from).collect();
            (cells[0].clone(), cells[5..].to_vec())
        })
        .collect();
    let sample = crate::common::testdata_file("sample.pgn");
    let sample = sample.to_str().unwrap();
    for args in [
        vec!["stats", "-q", "--all-positions", sample],
        vec!["stats", "-q", "--group-by", "Round", sample],
    ] {
        let out = crate::common::pgn960(&args, None).ok("stats");
        let mut reader = csv::Reader::from_reader(&out[..]);
        let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        let width = header.len();
        let scharnagl = header.iter().position(|h| h == "scharnagl").unwrap();
        assert_eq!(header[width - 9], "king_file", "{args:?}");
        let mut rows = 0;
        for record in reader.records() {
            let record = record.unwrap();
            let cells: Vec<String> = record.iter().map(String::from).collect();
            assert_eq!(cells[width - 9..], features[&cells[scharnagl]], "{args:?}");
            rows += 1;
        }
        assert!(rows > 0, "{args:?}");
    }
}
