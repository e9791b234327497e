# Random constant experts (Lemma 3.3 / A.8) against d: normalised separation and P[both conditions hold].
# Usage: gnuplot -e "csv='results/routing_packing.csv'; png='results/routing_packing.png'" plots/routing_packing.gp
# CSV columns: m,k,d,d_over_k_log_m,p_both,p_bounded,p_separated,max_norm2_mean,min_separation_mean,min_separation_std_error,
#              min_separation_q10,min_separation_q90,fail_bound_printed,fail_bound_exact,trials
if (!exists("csv")) csv = 'results/routing_packing.csv'
if (!exists("png")) png = 'results/routing_packing.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1500,660 enhanced font ",11"
} else {
  set terminal png size 1500,620
}
set output png
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title "Random constant experts u_j ∼ N(0, I/(2dk)) (granularity paper, Lemma 3.3 = A.8)"
set grid
colors = "#1f77b4 #ff7f0e #2ca02c #d62728"
shapes = "10,2 10,3 16,2 16,3"
mm(i) = int(word(shapes, i)[1:strstrt(word(shapes, i), ",") - 1])
kk(i) = int(word(shapes, i)[strstrt(word(shapes, i), ",") + 1:])
set xlabel "d"
set xrange [0:260]
set ylabel "min over pairs of ||u_S - u_S'||^2 4k / |S {/Symbol D} S'|"
set key bottom right box opaque
set yrange [0:*]
plot for [i=1:4] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):11:12 with filledcurves fs transparent solid 0.15 lc rgb word(colors, i) notitle, \
     for [i=1:4] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):9 with linespoints pt 7 ps 0.7 lw 2 lc rgb word(colors, i) \
       title sprintf("(m, k) = (%d, %d): mean, 10-90%% band", mm(i), kk(i)), \
     1 with lines dt 2 lw 2 lc rgb "black" title "separation condition (>= 1)"
set ylabel "P[boundedness and separation both hold]"
set yrange [-0.02:1.02]
set key outside below center box opaque maxrows 3 font ",10"
set xlabel "d" offset 0, 0.6
plot for [i=1:4] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):5 with linespoints pt 7 ps 0.7 lw 2 lc rgb word(colors, i) \
       title sprintf("(%d, %d) Monte-Carlo", mm(i), kk(i)), \
     for [i=1:4] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):(1 - $14) with lines dt 3 lw 1.5 lc rgb word(colors, i) notitle, \
     for [i=1:4] csv using ($1 == mm(i) && $2 == kk(i) ? $3 : 1/0):(1 - $13) with lines dt 2 lw 1.5 lc rgb word(colors, i) notitle, \
     NaN with lines dt 3 lw 1.5 lc rgb "gray30" title "1 - union bound, exact chi-square tails", \
     NaN with lines dt 2 lw 1.5 lc rgb "gray30" title "1 - union bound as printed (e^{-d/8}, e^{-d/16})"
unset multiplot
