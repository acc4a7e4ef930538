"""The notebook tools' kernel side: the tools server, which run made a call, the cell edits, the undo ledger, agent cells."""
