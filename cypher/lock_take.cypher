// Take the group's named lock for $owner until $until when it is free, expired by $now, already
// $owner's or held by one of $steal (owners known to be dead); return whoever holds it after.
MERGE (l:JobLock {group_id: $group_id, name: $name})
ON CREATE SET l.owner = $owner, l.until = $until
WITH l
SET l.taken = true
WITH l
FOREACH (_ IN CASE WHEN l.owner = $owner OR l.until <= $now OR l.owner IN $steal THEN [1] ELSE [] END |
  SET l.owner = $owner, l.until = $until)
REMOVE l.taken
RETURN l.owner AS owner
