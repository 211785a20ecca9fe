package io.nrtcluster.examples.search;

import io.nrtcluster.node.ClusterNode;

/**
 * One index this node hosts: the library's cluster node and the points-in-time kept for paging.
 *
 * @param name the index
 * @param node the cluster node (primary or replica, as the election decides)
 * @param searchers recent points-in-time of this index on this node
 */
record HostedIndex(String name, ClusterNode node, PointInTimeSearchers searchers) {}
