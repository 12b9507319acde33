SHOW INDEXES YIELD name, type, state, entityType, labelsOrTypes, properties
WHERE name STARTS WITH 'kgmem_'
RETURN name, type, state, entityType, labelsOrTypes, properties
ORDER BY name
