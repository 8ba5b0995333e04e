//! What the outputs take of one group's analysis, kept between the two
//! passes over the groups (see `grouped`): its findings by position and
//! its tests, the q-values (and so the significant positions) left to set
//! once every group's p-values are known. Written to a temporary file,
//! every number exactly (a float as its bits), when they do not fit in
//! memory.

use std::io::{self, BufRead, Write};

use super::analysis::{
    Analysis, FALSE_DISCOVERY_RATE, GroupTests, PositionFindings, PositionTest, Reference,
    ShrunkScore,
};

/// One group's findings by position and tests.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GroupFindings {
    /// By Scharnagl number, ascending.
    pub(crate) positions: Vec<(u16, PositionFindings)>,
    pub(crate) tests: GroupTests,
    /// The tested positions, in the order of their p-values in the family.
    pub(crate) tested: Vec<u16>,
}

impl GroupFindings {
    /// What the outputs take of `analysis`.
    pub(crate) fn of(analysis: &Analysis) -> GroupFindings {
        GroupFindings {
            positions: analysis
                .positions
                .iter()
                .map(|(id, findings)| (*id, *findings))
                .collect(),
            tests: analysis.tests.clone(),
            tested: analysis.p_values().into_iter().map(|(id, _)| id).collect(),
        }
    }

    /// Sets the q-values of the tested positions, those of the family from
    /// `at` on, as [`Analysis`] does; returns where the next group's begin.
    pub(crate) fn set_q_values(&mut self, q_values: &[f64], at: usize) -> usize {
        self.tests.significant.clear();
        for (id, q) in self.tested.iter().zip(&q_values[at..]) {
            if let Ok(found) = self.positions.binary_search_by_key(id, |(id, _)| *id) {
                self.positions[found].1.q_value = Some(*q);
            }
            if *q < FALSE_DISCOVERY_RATE {
                self.tests.significant.push(*id);
            }
        }
        at + self.tested.len()
    }

    /// About the bytes it holds, from above.
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of::<GroupFindings>()
            + self.positions.capacity() * std::mem::size_of::<(u16, PositionFindings)>()
            + (self.tested.capacity() + self.tests.significant.capacity()) * 2
    }

    /// Writes it (q-values and significant positions left out).
    pub(crate) fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut out = Encoder(out);
        out.count(self.positions.len())?;
        for (id, f) in &self.positions {
            out.u64(u64::from(*id))?;
            out.float(f.white_score_vs_elo)?;
            out.flag(f.test.is_some())?;
            if let Some(t) = f.test {
                out.u64(t.decisive)?;
                out.u64(t.wins)?;
                for x in [t.expected, t.variance, t.z, t.p_value] {
                    out.f64(x)?;
                }
            }
            out.float(f.expected_score)?;
            out.float(f.score_interval.map(|i| i.0))?;
            out.float(f.score_interval.map(|i| i.1))?;
            out.flag(f.shrunk.is_some())?;
            if let Some(s) = f.shrunk {
                for x in [s.estimate, s.low, s.high] {
                    out.f64(x)?;
                }
            }
        }
        out.count(self.tested.len())?;
        for id in &self.tested {
            out.u64(u64::from(*id))?;
        }
        let t = &self.tests;
        out.u64(t.positions)?;
        out.u64(t.finished_games)?;
        out.float(t.wdl_chi2)?;
        out.count_opt(t.wdl_df)?;
        out.float(t.wdl_p)?;
        out.reference(t.wdl_reference)?;
        out.u64(t.elo_positions)?;
        out.u64(t.elo_games)?;
        out.float(t.elo_delta)?;
        out.float(t.elo_q)?;
        out.count_opt(t.elo_df)?;
        out.float(t.elo_p)?;
        out.reference(t.elo_reference)?;
        for x in [
            t.rating_slope,
            t.white_advantage_elo,
            t.random_results,
            t.shrink_mu,
            t.shrink_tau2,
            t.heterogeneity_q,
        ] {
            out.float(x)?;
        }
        out.count_opt(t.heterogeneity_df)?;
        for x in [
            t.i2,
            t.tau2,
            t.tau2_low,
            t.tau2_high,
            t.median_games,
            t.detectable_shift,
            t.detectable_tau,
        ] {
            out.float(x)?;
        }
        Ok(())
    }

    /// Reads what [`GroupFindings::write`] wrote.
    pub(crate) fn read(input: &mut impl BufRead) -> io::Result<GroupFindings> {
        let mut input = Decoder(input);
        let count = input.u64()?;
        let mut positions = Vec::new();
        for _ in 0..count {
            let id = input.id()?;
            let white_score_vs_elo = input.float()?;
            let test = if input.flag()? {
                Some(PositionTest {
                    decisive: input.u64()?,
                    wins: input.u64()?,
                    expected: input.f64()?,
                    variance: input.f64()?,
                    z: input.f64()?,
                    p_value: input.f64()?,
                })
            } else {
                None
            };
            let expected_score = input.float()?;
            let low = input.float()?;
            let high = input.float()?;
            let shrunk = if input.flag()? {
                Some(ShrunkScore {
                    estimate: input.f64()?,
                    low: input.f64()?,
                    high: input.f64()?,
                })
            } else {
                None
            };
            positions.push((
                id,
                PositionFindings {
                    white_score_vs_elo,
                    test,
                    q_value: None,
                    expected_score,
                    score_interval: low.zip(high),
                    shrunk,
                },
            ));
        }
        let count = input.u64()?;
        let mut tested = Vec::new();
        for _ in 0..count {
            tested.push(input.id()?);
        }
        let tests = GroupTests {
            positions: input.u64()?,
            finished_games: input.u64()?,
            wdl_chi2: input.float()?,
            wdl_df: input.count_opt()?,
            wdl_p: input.float()?,
            wdl_reference: input.reference()?,
            elo_positions: input.u64()?,
            elo_games: input.u64()?,
            elo_delta: input.float()?,
            elo_q: input.float()?,
            elo_df: input.count_opt()?,
            elo_p: input.float()?,
            elo_reference: input.reference()?,
            rating_slope: input.float()?,
            white_advantage_elo: input.float()?,
            random_results: input.float()?,
            shrink_mu: input.float()?,
            shrink_tau2: input.float()?,
            heterogeneity_q: input.float()?,
            heterogeneity_df: input.count_opt()?,
            i2: input.float()?,
            tau2: input.float()?,
            tau2_low: input.float()?,
            tau2_high: input.float()?,
            median_games: input.float()?,
            detectable_shift: input.float()?,
            detectable_tau: input.float()?,
            significant: Vec::new(),
        };
        Ok(GroupFindings {
            positions,
            tests,
            tested,
        })
    }
}

struct Encoder<'a, W: Write>(&'a mut W);

impl<W: Write> Encoder<'_, W> {
    fn u64(&mut self, value: u64) -> io::Result<()> {
        self.0.write_all(&value.to_le_bytes())
    }

    fn count(&mut self, value: usize) -> io::Result<()> {
        self.u64(value as u64)
    }

    fn f64(&mut self, value: f64) -> io::Result<()> {
        self.u64(value.to_bits())
    }

    fn flag(&mut self, value: bool) -> io::Result<()> {
        self.0.write_all(&[u8::from(value)])
    }

    fn float(&mut self, value: Option<f64>) -> io::Result<()> {
        self.flag(value.is_some())?;
        value.map_or(Ok(()), |v| self.f64(v))
    }

    fn count_opt(&mut self, value: Option<u64>) -> io::Result<()> {
        self.flag(value.is_some())?;
        value.map_or(Ok(()), |v| self.u64(v))
    }

    fn reference(&mut self, name: Option<&'static str>) -> io::Result<()> {
        let code = match name {
            None => 0,
            Some(name) if name == Reference::ChiSquare.name() => 1,
            Some(_) => 2,
        };
        self.0.write_all(&[code])
    }
}

struct Decoder<'a, R: BufRead>(&'a mut R);

impl<R: BufRead> Decoder<'_, R> {
    fn u64(&mut self) -> io::Result<u64> {
        let mut bytes = [0; 8];
        self.0.read_exact(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn id(&mut self) -> io::Result<u16> {
        u16::try_from(self.u64()?).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))
    }

    fn f64(&mut self) -> io::Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    fn byte(&mut self) -> io::Result<u8> {
        let mut byte = [0];
        self.0.read_exact(&mut byte)?;
        Ok(byte[0])
    }

    fn flag(&mut self) -> io::Result<bool> {
        Ok(self.byte()? != 0)
    }

    fn float(&mut self) -> io::Result<Option<f64>> {
        Ok(if self.flag()? {
            Some(self.f64()?)
        } else {
            None
        })
    }

    fn count_opt(&mut self) -> io::Result<Option<u64>> {
        Ok(if self.flag()? {
            Some(self.u64()?)
        } else {
            None
        })
    }

    fn reference(&mut self) -> io::Result<Option<&'static str>> {
        Ok(match self.byte()? {
            0 => None,
            1 => Some(Reference::ChiSquare.name()),
            _ => Some(Reference::MonteCarlo.name()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{GameFacts, GameResult, StatsTable};

    #[test]
    fn findings_read_back_as_written() {
        let mut table = StatsTable::default();
        for i in 0..400u32 {
            let facts = GameFacts {
                result: [
                    Some(GameResult::WhiteWins),
                    Some(GameResult::Draw),
                    Some(GameResult::BlackWins),
                ][(i % 3) as usize],
                white_elo: Some(2000 + (i % 37) as i32 * 10),
                black_elo: Some(2100),
            };
            let position = BackRank::from_scharnagl(i % 12 * 80).expect("an id");
            table.add("g", position, &facts);
        }
        let analysis = Analysis::of(table.rows_in("g").expect("a group"), "g");
        let mut findings = GroupFindings::of(&analysis);
        assert!(!findings.tested.is_empty());
        assert!(findings.positions.iter().any(|(_, f)| f.shrunk.is_some()));
        let mut bytes = Vec::new();
        findings.write(&mut bytes).expect("in memory");
        findings.write(&mut bytes).expect("in memory");
        let mut input = &bytes[..];
        // What is written is all but the q-values, which are set after.
        let q_values = vec![0.01; findings.tested.len()];
        findings.set_q_values(&q_values, 0);
        for _ in 0..2 {
            let mut read = GroupFindings::read(&mut input).expect("read back");
            read.set_q_values(&q_values, 0);
            assert_eq!(read, findings);
        }
        assert!(input.is_empty());
        let mut whole = analysis.clone();
        whole.set_q_values(findings.tested.iter().copied().zip(q_values));
        assert_eq!(findings.tests, whole.tests);
    }
}
