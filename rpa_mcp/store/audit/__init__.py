"""The audit log: append-only, chained with a keyed MAC, checkpointed outside the database.

- `log`: `AuditLog`, an operation's row (committed with its first write), group commit, the writer thread
- `chain`: the writer's transaction that MACs a batch onto the chain's head
- `schema`: the tables on both backends, the fields a MAC covers, the MAC
- `views`: console page views, counted per person, page and hour, chained as one row each
- `checkpoint`, `key`: the chain's head outside the database; the audit key
- `reading`, `verify`: a page of rows; the chain's check
- `ledger`: the replay engine's run ledger, as rows of the chain
"""

from rpa_mcp.store.audit.checkpoint import CHECKPOINT_FILE
from rpa_mcp.store.audit.key import KEY_FILE, MIN_KEY_BYTES, load_audit_key
from rpa_mcp.store.audit.ledger import AuditRunLedger
from rpa_mcp.store.audit.log import AuditLog, AuditScope
from rpa_mcp.store.audit.schema import FIELDS, GENESIS, MIGRATIONS, ROW_FIELDS, row_mac
from rpa_mcp.store.audit.verify import AuditCheck

__all__ = [
    "CHECKPOINT_FILE",
    "FIELDS",
    "GENESIS",
    "KEY_FILE",
    "MIGRATIONS",
    "MIN_KEY_BYTES",
    "ROW_FIELDS",
    "AuditCheck",
    "AuditLog",
    "AuditRunLedger",
    "AuditScope",
    "load_audit_key",
    "row_mac",
]
