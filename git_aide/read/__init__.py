"""A source becomes a snapshot: listing.py lists it, record.py is what a memory of it
is, build.py makes its entries, load.py reads it (through a saved view), snapshot.py
answers queries (groups.py decodes its groups of entries, and keeps them in a long-lived
process; contents.py searches the memories' stored contents), and worktree.py lays the
working tree over the view. Nothing here ranks or prints."""
