//! Serialisation of the pool (feature `serde`): everything a run needs to
//! continue bitwise, validated on the way back in.
//!
//! Saved: the identity, the budget, every column (positions, previous
//! positions, inverse masses, rest lengths, the multipliers of the last
//! substep, each row's rest curvature and whether its segment is intact),
//! the cables' records (rows, parameters, attachments, winch state), the
//! slot arena with its generations and free list, and the colliders.
//! Not saved, because it is derived or process-local: the tether anchors
//! and reaches and the bending compliances (recomputed from the saved
//! columns and parameters, by the same code that computed them), the
//! counts of removed cables and rows (recounted), and the revisions (a
//! restored pool gets fresh ones, so no layout mistakes its copy of
//! another pool for a copy of this one).

use glam::Vec3;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::check::bad;
use super::revisions::Revisions;
use super::store::{CableRecord, NO_ANCHOR, ParticlePool, RowConst, Slot};
use crate::collider::ColliderSet;
use crate::error::CableError;

/// One field of each [`RowConst`], serialised as a sequence without a copy.
struct RowField<'a, T>(&'a [RowConst], fn(&RowConst) -> T);

impl<T: Serialize> Serialize for RowField<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for k in self.0 {
            seq.serialize_element(&(self.1)(k))?;
        }
        seq.end()
    }
}

#[derive(Serialize)]
#[serde(rename = "ParticlePool")]
struct PoolOut<'a> {
    id: u32,
    budget: usize,
    cables: &'a [CableRecord],
    slots: &'a [Slot],
    free_slots: &'a [u32],
    colliders: &'a ColliderSet,
    pos: &'a [Vec3],
    prev: &'a [Vec3],
    carry: &'a [Vec3],
    carry_prev: &'a [Vec3],
    inv_mass: &'a [f32],
    rest: &'a [f32],
    kappa0: RowField<'a, f32>,
    linked: RowField<'a, bool>,
    lambda: &'a [f32],
    lambda_bend: &'a [f32],
    lambda_row: &'a [[f32; 3]],
}

#[derive(Deserialize)]
#[serde(rename = "ParticlePool", deny_unknown_fields)]
struct PoolIn {
    id: u32,
    budget: usize,
    cables: Vec<CableRecord>,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    colliders: ColliderSet,
    pos: Vec<Vec3>,
    prev: Vec<Vec3>,
    /// Absent in saves from before the column existed: zero.
    #[serde(default)]
    carry: Vec<Vec3>,
    /// Absent in saves from before the column existed: zero (far from the
    /// origin the first substep after the restore then takes the previous
    /// position as stored, a difference of a spacing of its coordinates).
    #[serde(default)]
    carry_prev: Vec<Vec3>,
    inv_mass: Vec<f32>,
    rest: Vec<f32>,
    kappa0: Vec<f32>,
    linked: Vec<bool>,
    lambda: Vec<f32>,
    lambda_bend: Vec<f32>,
    lambda_row: Vec<[f32; 3]>,
}

impl Serialize for ParticlePool {
    /// Writes the whole state (see the module docs of `pool_save.rs`: the
    /// identity, the columns, the records, the slots, the colliders).
    /// Non-finite values cannot be restored: check
    /// [`ParticlePool::validate`] first when the simulation may have gone
    /// NaN (formats without NaN, such as JSON, write it as something that
    /// does not read back).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        PoolOut {
            id: self.id,
            budget: self.budget,
            cables: &self.cables,
            slots: &self.slots,
            free_slots: &self.free_slots,
            colliders: &self.colliders,
            pos: &self.state.get().pos,
            prev: &self.state.get().prev,
            carry: &self.state.get().carry,
            carry_prev: &self.state.get().carry_prev,
            inv_mass: &self.inv_mass,
            rest: &self.rest,
            kappa0: RowField(&self.row_const, |k| k.kappa0),
            linked: RowField(&self.row_const, |k| k.linked),
            lambda: &self.state.get().lambda,
            lambda_bend: &self.state.get().lambda_bend,
            lambda_row: &self.state.get().lambda_row,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for ParticlePool {
    /// Reads a saved pool, recomputes its derived constants and checks it
    /// ([`ParticlePool::validate`]): a damaged or hand-edited save is an
    /// error naming the place, never an invalid pool. The pool keeps the
    /// saved identity, so the handles issued before the save name the same
    /// cables (see [Identity and clones](ParticlePool#identity-and-clones)).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let saved = PoolIn::deserialize(d)?;
        ParticlePool::from_saved(saved).map_err(serde::de::Error::custom)
    }
}

impl ParticlePool {
    fn from_saved(s: PoolIn) -> Result<Self, CableError> {
        let n = s.pos.len();
        for (name, len) in [("kappa0", s.kappa0.len()), ("linked", s.linked.len())] {
            if len != n {
                return Err(bad(
                    name,
                    format!(
                        "holds {len} rows, but pos holds {n} (every column has one row per particle)"
                    ),
                ));
            }
        }
        let row_const = s
            .kappa0
            .iter()
            .zip(&s.linked)
            .map(|(&kappa0, &linked)| RowConst {
                anchor: [NO_ANCHOR; 2],
                reach: [0.0; 2],
                kappa0,
                bend_compliance: 0.0,
                linked,
            })
            .collect();
        let dead = s.cables.iter().filter(|c| !c.alive);
        let garbage_rows = dead.clone().fold(0usize, |a, c| a.saturating_add(c.count));
        let dead_records = dead.count();
        let mut pool = ParticlePool {
            id: s.id,
            state: super::lent::Lent::new(super::ParticleState {
                pos: s.pos,
                prev: s.prev,
                carry: if s.carry.is_empty() {
                    vec![glam::Vec3::ZERO; n]
                } else {
                    s.carry
                },
                carry_prev: if s.carry_prev.is_empty() {
                    vec![glam::Vec3::ZERO; n]
                } else {
                    s.carry_prev
                },
                lambda: s.lambda,
                lambda_bend: s.lambda_bend,
                lambda_row: s.lambda_row,
            }),
            inv_mass: s.inv_mass,
            rest: s.rest,
            row_const,
            cables: s.cables,
            slots: s.slots,
            free_slots: s.free_slots,
            garbage_rows,
            dead_records,
            budget: s.budget,
            rows_scratch: Vec::new(),
            moved_scratch: Vec::new(),
            colliders: s.colliders,
            revisions: Revisions::fresh(),
            sleepy: 0,
            sleeping: 0,
        };
        // Indexing below relies on the structure: check it first.
        pool.check_structure()?;
        for i in 0..pool.cables.len() {
            pool.refresh_rows(i);
        }
        pool.recount_sleep();
        pool.validate()?;
        crate::handle::reserve_owner_id(pool.id);
        Ok(pool)
    }
}
