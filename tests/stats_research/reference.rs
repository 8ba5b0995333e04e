//! The expected numbers of `tests/stats_research.rs`, as printed by
//! `testdata/stats/reference.py` (numpy, scipy, statsmodels and
//! python-chess, never pgn960's code) from `testdata/stats/research.pgn`:
//!
//! ```sh
//! python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy scipy statsmodels chess
//! /tmp/venv/bin/python testdata/stats/reference.py research        # ROWS, TESTS
//! /tmp/venv/bin/python testdata/stats/reference.py research Event  # ALPHA_*, BETA_*
//! ```
//!
//! Each row is printed on one line, as the script prints it.

/// (scharnagl, elo_games, [white_score_vs_elo, z, p_value, q_value,
/// white_score_shrunk, white_score_shrunk_low, white_score_shrunk_high,
/// white_score_wdl_low, white_score_wdl_high, white_score_expected,
/// decisive_games, white_wins_expected]); `None` is an empty cell.
pub type Row = (u16, u64, [Option<f64>; 12]);

/// The expected `--summary` object of a group. A Monte-Carlo p-value has
/// no reference value (`None`, with `Some("monte-carlo")` as its
/// reference): the test checks its form.
pub struct Tests {
    pub positions: u64,
    pub finished_games: u64,
    pub wdl_chi2: Option<f64>,
    pub wdl_df: Option<u64>,
    pub wdl_p: Option<f64>,
    pub wdl_reference: Option<&'static str>,
    pub elo_positions: u64,
    pub elo_games: u64,
    pub elo_delta: Option<f64>,
    pub elo_q: Option<f64>,
    pub elo_df: Option<u64>,
    pub elo_p: Option<f64>,
    pub elo_reference: Option<&'static str>,
    pub rating_slope: Option<f64>,
    pub white_advantage_elo: Option<f64>,
    pub random_results: Option<f64>,
    pub shrink_mu: Option<f64>,
    pub shrink_tau2: Option<f64>,
    pub heterogeneity_q: Option<f64>,
    pub heterogeneity_df: Option<u64>,
    pub i2: Option<f64>,
    pub tau2: Option<f64>,
    pub tau2_low: Option<f64>,
    pub tau2_high: Option<f64>,
    pub median_games: Option<f64>,
    pub detectable_shift: Option<f64>,
    pub detectable_tau: Option<f64>,
    pub significant: &'static [u16],
}

/// The rows of the whole fixture.
#[rustfmt::skip]
pub const ROWS: [Row; 9] = [
    (0, 31, [Some(-0.07497343488476826), Some(-2.526708164281509), Some(0.02197816540145314), Some(0.07692357890508598), Some(0.4127103796469256), Some(0.2953891243101024), Some(0.5271428893139796), Some(0.2696207102942376), Some(0.5189709498451084), Some(0.5611942127243492), Some(18.0), Some(9.618758678254322)]),
    (5, 1, [Some(0.14006499980288506), None, None, None, Some(0.46855289737482547), Some(0.15282653758668763), Some(0.790214364153268), Some(0.10327465589590115), Some(0.8967253441040989), Some(0.4687562993697245), None, None]),
    (7, 31, [Some(0.007078841956954597), Some(-0.7717526700287544), Some(0.6164719333093049), Some(1.0), Some(0.5223579425488588), Some(0.4145641347325149), Some(0.6287693816080215), Some(0.38365001169587065), Some(0.6427760307867112), Some(0.5667377406794738), Some(21.0), Some(12.391245864906976)]),
    (42, 32, [Some(0.14755810273643122), Some(0.37089229840271465), Some(0.9616312408117551), Some(1.0), Some(0.6512232843788684), Some(0.5476587726960307), Some(0.7558496667482503), Some(0.5225512795996058), Some(0.7606512652280041), Some(0.6253884753033924), Some(23.0), Some(16.389633191963114)]),
    (123, 0, [None, None, None, None, None, None, None, None, None, None, None, None]),
    (300, 30, [Some(0.09517041041676683), Some(-0.6045532277885), Some(0.7306366923966723), Some(1.0), Some(0.612675878835711), Some(0.5030792337736094), Some(0.7223264326146723), Some(0.4626445920098724), Some(0.7382654796334773), Some(0.6173852930235963), Some(23.0), Some(16.046537415344087)]),
    (518, 30, [Some(0.36438684239513375), Some(4.271814708846972), Some(7.030302143822199e-06), Some(4.921211500675539e-05), Some(0.7891567240670622), Some(0.6686485444493089), Some(0.9092470737433596), Some(0.7141081096741627), Some(0.898926906294963), Some(0.5768499661307478), Some(26.0), Some(15.66475781910476)]),
    (700, 29, [Some(0.015307880602265152), Some(-1.3723012155365923), Some(0.26126653209801065), Some(0.6096219082286916), Some(0.4720249758255106), Some(0.36078092022750446), Some(0.5806868292888684), Some(0.3305055690019337), Some(0.590216303550321), Some(0.5566280894912234), Some(23.0), Some(12.680087796886138)]),
    (959, 0, [None, Some(-0.028767798089122946), Some(1.0), Some(1.0), Some(0.5228379765719662), Some(0.3728444500406615), Some(0.6734347335314665), Some(0.34878897124729463), Some(0.6931547707434489), Some(0.523486901535682), Some(15.0), Some(8.055555555555555)]),
];

/// The `--summary` of the whole fixture.
#[rustfmt::skip]
pub const TESTS: Tests = Tests {
    positions: 8,
    finished_games: 225,
    wdl_chi2: Some(34.39485613128581),
    wdl_df: Some(14),
    wdl_p: None,
    wdl_reference: Some("monte-carlo"),
    elo_positions: 7,
    elo_games: 149,
    elo_delta: Some(0.09232520667624547),
    elo_q: Some(27.615341152478734),
    elo_df: Some(4),
    elo_p: Some(1.4924218713607331e-05),
    elo_reference: Some("chi-square"),
    rating_slope: Some(1.8142190026351037),
    white_advantage_elo: Some(144.80384176007928),
    random_results: Some(0.0),
    shrink_mu: Some(-0.005610864876057677),
    shrink_tau2: Some(0.02869344321082786),
    heterogeneity_q: Some(31.168407679732795),
    heterogeneity_df: Some(7),
    i2: Some(0.7754136152245038),
    tau2: Some(0.015435752277085482),
    tau2_low: Some(0.0033828048679346184),
    tau2_high: Some(0.06257003971327711),
    median_games: Some(34.0),
    detectable_shift: Some(0.21235238047050553),
    detectable_tau: Some(0.11285301717441021),
    significant: &[518],
};

/// The rows of group Alpha.
#[rustfmt::skip]
pub const ALPHA_ROWS: [Row; 9] = [
    (0, 15, [Some(-0.03766166846082122), Some(-1.384969339708898), Some(0.28680107966846236), Some(0.9726031547906908), Some(0.44599049530504253), Some(0.28352480769939803), Some(0.5792044388586984), Some(0.23106697523098252), Some(0.5770078806232893), Some(0.5109797322812994), Some(12.0), Some(6.101003695216956)]),
    (5, 1, [Some(0.14006499980288506), None, None, None, Some(0.44664173275330515), Some(0.1895158436389131), Some(0.7147630038653772), Some(0.1032746558959013), Some(0.8967253441040987), Some(0.4408059011043617), None, None]),
    (7, 19, [Some(-0.0027577704871924956), Some(-0.8917915189906355), Some(0.6022676630087949), Some(1.0), Some(0.5083677314464792), Some(0.3686233387991492), Some(0.6304883934965755), Some(0.3087271146563475), Some(0.6474928446204716), Some(0.5502798165403169), Some(11.0), Some(6.176577247344009)]),
    (42, 13, [Some(0.07758494714352472), Some(-0.3305217263915566), Some(1.0), Some(1.0), Some(0.5848593103259367), Some(0.4418405236369769), Some(0.7206398443192445), Some(0.3641706451525125), Some(0.7479278112184902), Some(0.5979422867166312), Some(10.0), Some(6.376193618545375)]),
    (123, 0, [None, None, None, None, None, None, None, None, None, None, None, None]),
    (300, 15, [Some(0.1153938364225277), Some(0.006619518953853454), Some(1.0), Some(1.0), Some(0.6386567684156794), Some(0.5080199586394172), Some(0.7792651057160664), Some(0.4399203094389003), Some(0.8120772896244106), Some(0.6189968714920829), Some(13.0), Some(8.991017572289776)]),
    (518, 16, [Some(0.2978563670726905), Some(2.9705823823215254), Some(0.003703793335892578), Some(0.026626436251643935), Some(0.7283566567369969), Some(0.5743553573752063), Some(0.906170110368645), Some(0.6563837542470454), Some(0.9186061267188503), Some(0.6047473485961427), Some(12.0), Some(7.692210268156237)]),
    (700, 18, [Some(0.009980809534643321), Some(-0.6568512987754598), Some(0.7647518086288625), Some(1.0), Some(0.5272493360255845), Some(0.38976978924652006), Some(0.650294098541557), Some(0.3303313961703259), Some(0.6696686038296741), Some(0.5595968714903357), Some(12.0), Some(6.902499173129358)]),
    (959, 0, [None, Some(0.2461829819586657), Some(1.0), Some(1.0), Some(0.4786110674766154), Some(0.2949003883067649), Some(0.6727534100867285), Some(0.23172146870083746), Some(0.7682785312991626), Some(0.4678571428571428), Some(6.0), Some(2.6999999999999997)]),
];

/// The `--summary` of group Alpha.
#[rustfmt::skip]
pub const ALPHA_TESTS: Tests = Tests {
    positions: 8,
    finished_games: 111,
    wdl_chi2: Some(19.202605116749588),
    wdl_df: Some(14),
    wdl_p: None,
    wdl_reference: Some("monte-carlo"),
    elo_positions: 7,
    elo_games: 76,
    elo_delta: Some(0.07430526430540488),
    elo_q: Some(12.13913999439346),
    elo_df: Some(4),
    elo_p: None,
    elo_reference: Some("monte-carlo"),
    rating_slope: Some(1.7093433918027516),
    white_advantage_elo: Some(105.0305225417606),
    random_results: Some(0.0),
    shrink_mu: Some(0.000940890925915827),
    shrink_tau2: Some(0.016417557606177625),
    heterogeneity_q: Some(11.385374311956419),
    heterogeneity_df: Some(7),
    i2: Some(0.38517612085455033),
    tau2: Some(0.0059195289929800735),
    tau2_low: Some(0.0),
    tau2_high: Some(0.04134388952789136),
    median_games: Some(16.5),
    detectable_shift: Some(0.3142820131559503),
    detectable_tau: Some(0.16475971458201347),
    significant: &[518],
};

/// The rows of group Beta.
#[rustfmt::skip]
pub const BETA_ROWS: [Row; 7] = [
    (0, 16, [Some(-0.10995321590721874), Some(-2.1886784362470415), Some(0.07622239947930656), Some(0.3557045309034306), Some(0.43124804556170043), Some(0.2727437587640587), Some(0.5849874091954345), Some(0.2384289404758701), Some(0.5696459153784017), Some(0.6076578597231), Some(6.0), Some(3.298983791409159)]),
    (7, 12, [Some(0.022653478326854232), Some(-0.18130566646698953), Some(1.0), Some(1.0), Some(0.5673972218676473), Some(0.41529291160967136), Some(0.7191749293933061), Some(0.3721650632226), Some(0.7339838296312018), Some(0.5839193392658157), Some(10.0), Some(6.225521497309591)]),
    (42, 19, [Some(0.19543447235263053), Some(0.7890849052057193), Some(0.7388390634861065), Some(1.0), Some(0.699191340852563), Some(0.5705246316518625), Some(0.8316550076966222), Some(0.5442068477354205), Some(0.8180907146986609), Some(0.6511025318809126), Some(13.0), Some(10.077874329492229)]),
    (300, 15, [Some(0.07494698441100596), Some(-0.8863558205324391), Some(0.6266513535217817), Some(1.0), Some(0.5745532520216117), Some(0.42522793793419605), Some(0.7213491340186159), Some(0.3721650632226), Some(0.7339838296312018), Some(0.6135970644491461), Some(10.0), Some(6.974105460127751)]),
    (518, 14, [Some(0.44042167133506893), Some(2.968893685849637), Some(0.003803776607377705), Some(0.026626436251643935), Some(0.7606255212538661), Some(0.5868437366549019), Some(0.9342021030488287), Some(0.642605355721948), Some(0.9186061267188504), Some(0.5519489335678511), Some(14.0), Some(8.13105352500536)]),
    (700, 11, [Some(0.024024905985646407), Some(-1.2867100803336982), Some(0.3473582695681039), Some(0.9726031547906908), Some(0.4352580967104219), Some(0.27053551259847086), Some(0.5907642219669631), Some(0.23327303944550917), Some(0.6075036212737882), Some(0.5485628734085299), Some(11.0), Some(5.8275359305717505)]),
    (959, 0, [None, Some(-0.16903085094570272), Some(1.0), Some(1.0), Some(0.5383261712048509), Some(0.3570480244712092), Some(0.7195165289068322), Some(0.33364197226430053), Some(0.7257353065717147), Some(0.5524691358024691), Some(9.0), Some(5.249999999999999)]),
];

/// The `--summary` of group Beta.
#[rustfmt::skip]
pub const BETA_TESTS: Tests = Tests {
    positions: 7,
    finished_games: 114,
    wdl_chi2: Some(24.635176386011224),
    wdl_df: Some(12),
    wdl_p: None,
    wdl_reference: Some("monte-carlo"),
    elo_positions: 7,
    elo_games: 73,
    elo_delta: Some(0.11241640679086087),
    elo_q: Some(16.729990647482712),
    elo_df: Some(4),
    elo_p: None,
    elo_reference: Some("monte-carlo"),
    rating_slope: Some(1.864386234324874),
    white_advantage_elo: Some(189.79214823174505),
    random_results: Some(0.0),
    shrink_mu: Some(-0.014665441232166189),
    shrink_tau2: Some(0.0384058793318797),
    heterogeneity_q: Some(22.25131063351307),
    heterogeneity_df: Some(6),
    i2: Some(0.7303529621772796),
    tau2: Some(0.0198784483127894),
    tau2_low: Some(0.0037929590367013536),
    tau2_high: Some(0.1198202050504439),
    median_games: Some(15.0),
    detectable_shift: Some(0.30122037363510135),
    detectable_tau: Some(0.15191714681231996),
    significant: &[518],
};
