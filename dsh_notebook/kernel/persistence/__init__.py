"""What a kernel leaves for the next: versioned records, the Run All ledger, kept transcripts, conversations, the session lock."""
