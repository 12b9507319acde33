// Take the group's named lock for $owner until $until when it is free, expired by $now or already $owner's.
MERGE (l:JobLock {group_id: $group_id, name: $name})
ON CREATE SET l.owner = $owner, l.until = $until
WITH l
SET l.taken = true
WITH l
WHERE l.owner = $owner OR l.until <= $now
SET l.owner = $owner, l.until = $until
REMOVE l.taken
RETURN l.owner AS owner
