-- A notice about a game that changes nothing of it (a match's standing), to every hub
-- that follows the game, as "0 <frame>".
-- KEYS[1] the game's set of hubs   ARGV[1] the game's channel stem   ARGV[2] the frame
publish(KEYS[1], ARGV[1], '0 ' .. ARGV[2], '')
return 1
