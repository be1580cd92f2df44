// The parameter limits of the CUDA kernels, as plain constants: no CUDA header is needed,
// so a build without CUDA still knows them. The stages' parameter tables declare them and
// the config validation applies them whenever a pipeline is meant for a CUDA device, so
// `framepipe validate --device cuda:0` refuses what the kernels would refuse, on any machine.
#pragma once

namespace fp::cuda {

// mean_smooth: the shared-memory tile holds a halo of at most 32 (a 65x65 window).
inline constexpr int kMeanSmoothMaxRadius = 32;

// nlmeans: every patch the kernel is compiled for, and the search sides whose
// shared-memory tile fits an SM comfortably.
inline constexpr int kNlmeansMaxPatch = 15;
inline constexpr int kNlmeansMaxSearch = 51;

// temporal_nlmeans: the window searched in each previous frame (its shared-memory tile).
inline constexpr int kTemporalNlmeansMaxSearch = 21;

// pyramid_fusion: its workspace layout has a fixed table of levels.
inline constexpr int kMaxFusionLevels = 12;

}  // namespace fp::cuda
