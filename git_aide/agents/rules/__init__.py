"""Rules files: markdown read as memories (import), memories written as rules files
(export), and both kept in step after a write.
"""
