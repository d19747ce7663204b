// SPDX-License-Identifier: GPL-2.0
// hole: a lookup whose name hash was made for another table or socket type, or by hand:
// the name is then looked for in a chain it cannot be in
// rule: `AbstractName`'s fields are `hash.rs`'s own: only `TableRef::abstract_name`
// hashes a name, in the table it then looks in
// expect: E0451

use crate::hash::{AbstractName, NameHash, NetTable};

pub(crate) fn forge<'a>(t: &'a NetTable, name: &'a [u8], h: NameHash) -> AbstractName<'a> {
    AbstractName { t, name, h }
}
