// Village setup: the shared lore, the 16 personas, the reply schema and the NPC record.
//
// Prompt design for the prefix cache: every NPC's conversation starts with the SAME system
// message (the lore, long) followed by its own system message (the persona, short), then the
// player's line. The Generator stores the State at every message boundary, so the first NPC to
// speak pays for the lore once and every later NPC starts from the cached State after it: only
// its persona tail and the player's line are prefilled.
#pragma once

#include <ai00/ai00.hpp>
#include <optional>
#include <string>
#include <vector>

#include "json_reply.hpp"

namespace village {

// The common prefix of every NPC's prompt. Longer lore costs nothing per NPC after the first.
inline const char* lore() {
  return "The village of Hollowmere sits where the river Tam bends around three hills. It has "
         "a mill, a smithy, an inn called the Gilded Goose, a chapel with a cracked bell, and a "
         "market every seventh day. The lord, Baron Aldric, lives in the keep on the north hill "
         "and taxes the harvest at one sheaf in five. Wolves have been seen in the Ashwood this "
         "winter, and two sheep went missing last week. A stranger (the player) arrived this "
         "morning on the old trade road. Villagers are polite to strangers but wary of "
         "questions about the keep. Everyone in Hollowmere answers the stranger in character, "
         "briefly, as one JSON object with the keys say (what they say aloud, one short "
         "sentence), emotion (how they feel) and action (what they do next).";
}

struct Persona {
  const char* name;
  const char* tail;  // the NPC-specific system message
};

inline const std::vector<Persona>& personas() {
  static const std::vector<Persona> p = {
      {"Mira", "You are Mira, the innkeeper of the Gilded Goose. Warm, nosy, loves gossip."},
      {"Bram", "You are Bram, a retired knight. Gruff, honest, distrusts the Baron."},
      {"Tess", "You are Tess, a travelling bard staying at the inn. Cheerful, rhymes a lot."},
      {"Oswin", "You are Oswin, the miller. Slow-spoken, worried about the harvest tax."},
      {"Greta", "You are Greta, the blacksmith. Blunt, proud of her blades, sells to anyone."},
      {"Pell", "You are Pell, a shepherd boy who lost two sheep. Scared of the wolves."},
      {"Father Anselm", "You are Father Anselm, the priest. Kind, wants the bell repaired."},
      {"Yara", "You are Yara, a herbalist living near the Ashwood. Secretive, sharp."},
      {"Captain Rhys", "You are Captain Rhys of the Baron's guard. Suspicious of strangers."},
      {"Lotte", "You are Lotte, a market trader. Haggles over everything, always smiling."},
      {"Old Finn", "You are Old Finn, the ferryman. Tells tall tales about the river."},
      {"Ada", "You are Ada, the Baron's scribe. Nervous, knows secrets of the keep."},
      {"Corin", "You are Corin, a hunter. Quiet, tracking the wolves in the Ashwood."},
      {"Maud", "You are Maud, the baker. Generous, feeds every stranger who passes."},
      {"Wex", "You are Wex, a pickpocket pretending to be a beggar. Sly, flattering."},
      {"Sister Ilse", "You are Sister Ilse, a healer at the chapel. Calm, tired, practical."},
  };
  return p;
}

// What the player says to NPC i (a few lines, cycled).
inline std::string player_line(size_t i) {
  static const char* lines[] = {
      "Good day! I am looking for work. Who in this village could use a hand?",
      "Have you seen the wolves yourself? Where do they come from?",
      "What can you tell me about the Baron up in the keep?",
      "I have coin to spend. What do you have to offer a traveller?",
  };
  return lines[i % 4];
}

// The reply schema: the grammar built from it makes every answer parse (enum values included).
// maxLength bounds the sentence so that a turn ends within a known number of tokens.
inline std::string reply_schema() {
  auto list = [](const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ",\"" : "\"") + v[i] + "\"";
    return s + "]";
  };
  return R"({"type":"object","properties":{)"
         R"("say":{"type":"string","minLength":1,"maxLength":48},)"
         R"("emotion":{"enum":)" +
         list(emotions()) +
         "},"
         R"("action":{"enum":)" +
         list(actions()) +
         "}},"
         R"("required":["say","emotion","action"],"additionalProperties":false})";
}

// The grammar of the reply: compact canonical JSON (no whitespace for the model to wander in).
inline ai00::Grammar reply_grammar(const ai00::Model& model) {
  ai00_schema_options o{};
  o.struct_size = sizeof o;
  if (ai00_status s = ai00_schema_options_default(&o); s != AI00_OK)
    throw ai00::Error(s, "ai00_schema_options_default failed");
  o.strict_properties = 1;
  o.flexible_whitespace = 0;
  o.compact = 1;
  return ai00::Grammar::json_schema(model, reply_schema(), &o);
}

// One villager: its State (everything it remembers), and the Generator of its current turn.
struct Npc {
  std::string name;
  std::string persona;
  ai00::State state;
  std::optional<ai00::Generator> turn;  // borrowed by the Batch while it is a member
  std::string answer;                   // the reply text of the last finished turn
  int joined_frame = -1, finished_frame = -1;

  Npc(const ai00::Model& model, const Persona& p) : name(p.name), persona(p.tail), state(model) {}
};

// The conversation of an NPC's first turn: lore, persona, the player's line.
inline std::vector<ai00::Message> first_turn(const Npc& npc, const std::string& line) {
  return {ai00::Message::text("system", lore()), ai00::Message::text("system", npc.persona),
          ai00::Message::text("user", line)};
}

inline ai00::RenderOptions render_for(const Npc& npc) {
  ai00::RenderOptions r;
  r.assistant_name = npc.name;
  return r;
}

}  // namespace village
