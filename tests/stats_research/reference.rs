//! The expected numbers of `tests/stats_research.rs`, as printed by
//! `testdata/stats/reference.py` (scipy, statsmodels and python-chess,
//! never pgn960's code) from `testdata/stats/research.pgn`:
//!
//! ```sh
//! pip install scipy numpy statsmodels chess
//! python3 testdata/stats/reference.py research        # ROWS, TESTS
//! python3 testdata/stats/reference.py research Event  # ALPHA_*, BETA_*
//! ```
//!
//! Each row is printed on one line, as the script prints it.

/// (scharnagl, elo_games, [white_score_vs_elo, z, p_value, q_value,
/// white_score_shrunk, white_score_shrunk_low, white_score_shrunk_high]);
/// `None` is an empty cell.
pub type Row = (u16, u64, [Option<f64>; 7]);

/// The expected `--summary` object of a group.
pub struct Tests {
    pub positions: u64,
    pub finished_games: u64,
    pub wdl_chi2: Option<f64>,
    pub wdl_df: Option<u64>,
    pub wdl_p: Option<f64>,
    pub elo_positions: u64,
    pub elo_games: u64,
    pub elo_delta: Option<f64>,
    pub elo_q: Option<f64>,
    pub elo_df: Option<u64>,
    pub elo_p: Option<f64>,
    pub shrink_mu: Option<f64>,
    pub shrink_tau2: Option<f64>,
    pub significant: &'static [u16],
}

/// The rows of the whole fixture.
#[rustfmt::skip]
pub const ROWS: [Row; 9] = [
    (0, 31, [Some(-0.07497343488476826), Some(-1.9979574530119426), Some(0.04572127302909672), Some(0.1600244556018385), Some(0.4208025987279393), Some(0.3009567387833902), Some(0.5406484586724883)]),
    (5, 1, [Some(0.14006499980288506), Some(0.09946183172181364), Some(0.9207715914602602), Some(0.9727500812799458), Some(0.5617015000140397), Some(0.31164086864233354), Some(0.8117621313857459)]),
    (7, 31, [Some(0.007078841956954597), Some(-1.0600432875984243), Some(0.28912490655142187), Some(0.6216985017802708), Some(0.5258439095402021), Some(0.405998049595653), Some(0.6456897694847512)]),
    (42, 32, [Some(0.14755810273643122), Some(0.6929678795170584), Some(0.4883297092634147), Some(0.6836615929687805), Some(0.639304754006446), Some(0.5208336248872077), Some(0.7577758831256843)]),
    (123, 0, [None, None, None, None, None, None, None]),
    (300, 30, [Some(0.09517041041676683), Some(0.034159350413502765), Some(0.9727500812799458), Some(0.9727500812799458), Some(0.6030906336060051), Some(0.4788144258906193), Some(0.727366841321391)]),
    (518, 30, [Some(0.36438684239513375), Some(3.2181852183639736), Some(0.0012900448405585006), Some(0.009030313883909504), Some(0.7811569931262026), Some(0.664014346955458), Some(0.8982996392969471)]),
    (700, 29, [Some(0.015307880602265152), Some(-0.9244419024758765), Some(0.35525628673158327), Some(0.6216985017802708), Some(0.4791588825125298), Some(0.3593130225679807), Some(0.5990047424570789)]),
    (959, 0, [None, None, None, None, Some(0.5383893714444036), Some(0.3923232724784778), Some(0.6844554704103294)]),
];

/// The `--summary` of the whole fixture.
pub const TESTS: Tests = Tests {
    positions: 8,
    finished_games: 225,
    wdl_chi2: Some(34.39485613128581),
    wdl_df: Some(14),
    wdl_p: Some(0.0018052357435935382),
    elo_positions: 7,
    elo_games: 184,
    elo_delta: Some(0.09232520667624547),
    elo_q: Some(16.818098685610536),
    elo_df: Some(6),
    elo_p: Some(0.00997552767027792),
    shrink_mu: Some(0.568681080372221),
    shrink_tau2: Some(0.01811906795362353),
    significant: &[518],
};

/// The group Alpha of `--group-by Event`.
#[rustfmt::skip]
pub const ALPHA_ROWS: [Row; 9] = [
    (0, 15, [Some(-0.03766166846082122), Some(-0.922171137588482), Some(0.3564393154731976), Some(0.9570807410874425), Some(0.4643919608229775), Some(0.321311146162061), Some(0.607472775483894)]),
    (5, 1, [Some(0.14006499980288506), Some(0.13700486151607544), Some(0.891026952415695), Some(0.9787489068182109), Some(0.5574304584953927), Some(0.35303047932505993), Some(0.7618304376657256)]),
    (7, 19, [Some(-0.0027577704871924956), Some(-0.7442197741164129), Some(0.4567435269606689), Some(0.9570807410874425), Some(0.5114725607437371), Some(0.37274531543857775), Some(0.6501998060488965)]),
    (42, 13, [Some(0.07758494714352472), Some(0.02663744529828561), Some(0.9787489068182109), Some(0.9787489068182109), Some(0.566361658821703), Some(0.4159065724632052), Some(0.7168167451802008)]),
    (123, 0, [None, None, None, None, None, None, None]),
    (300, 15, [Some(0.1153938364225277), Some(0.3466805087398241), Some(0.7288313549079879), Some(0.9787489068182109), Some(0.6113779975256466), Some(0.46596085478735605), Some(0.7567951402639371)]),
    (518, 16, [Some(0.2978563670726905), Some(1.9670311136507856), Some(0.04917962390570311), Some(0.34425736733992174), Some(0.7126121830839429), Some(0.5717585888334421), Some(0.8534657773344437)]),
    (700, 18, [Some(0.009980809534643321), Some(-0.6024069563959379), Some(0.5469032806213957), Some(0.9570807410874425), Some(0.5264547775659071), Some(0.3877275322607477), Some(0.6651820228710665)]),
    (959, 0, [None, None, None, None, Some(0.5413080428865124), Some(0.3679567779287691), Some(0.7146593078442556)]),
];

/// The `--summary` object of Alpha.
pub const ALPHA_TESTS: Tests = Tests {
    positions: 8,
    finished_games: 111,
    wdl_chi2: Some(19.202605116749588),
    wdl_df: Some(14),
    wdl_p: Some(0.15735115932840113),
    elo_positions: 7,
    elo_games: 97,
    elo_delta: Some(0.07430526430540489),
    elo_q: Some(5.776035483082748),
    elo_df: Some(6),
    elo_p: Some(0.44874071058194065),
    shrink_mu: Some(0.5614262049932274),
    shrink_tau2: Some(0.011632603003936898),
    significant: &[],
};

/// The group Beta.
#[rustfmt::skip]
pub const BETA_ROWS: [Row; 7] = [
    (0, 16, [Some(-0.10995321590721874), Some(-1.923583818168592), Some(0.054406770982085316), Some(0.16322031294625594), Some(0.44577114616757596), Some(0.2933469731948332), Some(0.5981953191403186)]),
    (7, 12, [Some(0.022653478326854232), Some(-0.7035506432777159), Some(0.4817126577806842), Some(0.6079003556422813), Some(0.5697581973196849), Some(0.4109326171049939), Some(0.728583777534376)]),
    (42, 19, [Some(0.19543447235263053), Some(0.7943101389190154), Some(0.427014902998308), Some(0.6079003556422813), Some(0.6748506798693165), Some(0.5332043699821644), Some(0.8164969897564686)]),
    (300, 15, [Some(0.07494698441100596), Some(-0.320084321521452), Some(0.7489044105545287), Some(0.7489044105545287), Some(0.5697581973196849), Some(0.4109326171049939), Some(0.728583777534376)]),
    (518, 14, [Some(0.44042167133506893), Some(2.5974141814976996), Some(0.009392858822218719), Some(0.05635715293331231), Some(0.751767478476863), Some(0.6022667918992801), Some(0.9012681650544458)]),
    (700, 11, [Some(0.024024905985646407), Some(-0.6641666909288384), Some(0.5065836297019011), Some(0.6079003556422813), Some(0.46256017061195565), Some(0.30373459039726464), Some(0.6213857508266467)]),
    (959, 0, [None, None, None, None, Some(0.5528510112724727), Some(0.3867432342371652), Some(0.7189587883077802)]),
];

/// The `--summary` object of Beta.
pub const BETA_TESTS: Tests = Tests {
    positions: 7,
    finished_games: 114,
    wdl_chi2: Some(24.635176386011224),
    wdl_df: Some(12),
    wdl_p: Some(0.01664947624699699),
    elo_positions: 6,
    elo_games: 87,
    elo_delta: Some(0.11241640679086087),
    elo_q: Some(12.11621860643467),
    elo_df: Some(5),
    elo_p: Some(0.033229555779804895),
    shrink_mu: Some(0.5753309830053648),
    shrink_tau2: Some(0.018403713149454312),
    significant: &[],
};
