"""The domain model: platforms (clusters, nodes, partitions, links) and jobs.

Pure data and validation; nothing here knows about time advancing or about policies.
"""
