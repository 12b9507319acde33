// Free the group's named lock if $owner holds it.
MATCH (l:JobLock {group_id: $group_id, name: $name})
WHERE l.owner = $owner
DELETE l
